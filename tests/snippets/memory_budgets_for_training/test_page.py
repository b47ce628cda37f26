"""The Foundations pages keep the lesson pattern; the other Foundations page
tests import `check_page` from here.
Typed numbers are the site-wide rule's (tests/site/test_rendered.py)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "foundations" / "memory-budgets-for-training.md"


def check_page(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert text.count('??? success "Answer"') >= 5
    assert "<!-- run: snippets/" in text
    assert "<!-- diagram: snippets/" in text or "from-trace" in page.name
    assert "\n## Read next\n" in text and "[^" in text


def test_the_page_follows_the_pattern():
    check_page(PAGE)
    text = PAGE.read_text(encoding="utf-8")
    assert "<!-- calculator: snippets/lib/training_memory/budget.py:" in text
    assert "<!-- predict: snippets/lib/training_memory/" in text
