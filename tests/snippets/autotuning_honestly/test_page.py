"""The autotuning page follows the lesson pattern
(typed numbers: the site-wide rule in tests/site/test_rendered.py)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "kernels" / "to-the-service" / "autotuning-honestly.md"


def test_the_page_types_no_number_and_follows_the_pattern():
    text = PAGE.read_text(encoding="utf-8")
    assert text.count('??? success "Answer"') >= 2
    assert "<!-- run: snippets/" in text and "<!-- diagram: snippets/" in text
    assert "\n## Read next\n" in text and "<!-- badge: " in text
