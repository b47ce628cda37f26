from pathlib import Path

from tests.snippets.memory_budgets_for_training.test_page import check_page

PAGE = Path(__file__).resolve().parents[3] / "docs/foundations/inference-budgets.md"


def test_the_page_follows_the_pattern():
    check_page(PAGE)
    text = PAGE.read_text(encoding="utf-8")
    for func in ("kv_cache", "decode_ceiling"):
        assert (
            f"<!-- calculator: snippets/inference_budgets/budget.py:{func} -->" in text
        )
