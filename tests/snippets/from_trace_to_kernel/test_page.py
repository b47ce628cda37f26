from pathlib import Path

from tests.snippets.memory_budgets_for_training.test_page import check_page

PAGE = Path(__file__).resolve().parents[3] / "docs/foundations/from-trace-to-kernel.md"


def test_the_page_follows_the_pattern():
    check_page(PAGE)
    text = PAGE.read_text(encoding="utf-8")
    assert "<!-- badge: measured, CPU -->" in text and "../kernels/index.md" in text
