from pathlib import Path

from tests.snippets.memory_budgets_for_training.test_page import check_page

PAGE = Path(__file__).resolve().parents[3] / "docs/foundations/whole-model-roofline.md"


def test_the_page_follows_the_pattern():
    check_page(PAGE)
