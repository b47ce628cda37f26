"""docs/kernels/frontier/backward-kernel.md types no quantity (the
site-wide rule of tests/site/test_rendered.py) and follows the lesson
pattern."""

from pathlib import Path

from tests.site.test_rendered import numbers_in

PAGE = Path(__file__).resolve().parents[3] / "docs/kernels/frontier/backward-kernel.md"


def test_the_page_types_no_numbers_and_follows_the_pattern():
    text = PAGE.read_text(encoding="utf-8")
    assert numbers_in(text) == []
    assert text.startswith("---\naccess: premium\n")
    for kind in ("model", "artifact", "interpreter"):
        assert f"<!-- badge: {kind} -->" in text
    assert "<!-- badge: measured -->" not in text  # no device has run it
    assert text.count('??? info "How we know"') <= 1
    assert text.count('??? success "Answer"') >= 2
    assert "<!-- diagram: " in text and "<!-- run: " in text
    assert "## Read next" in text and "[^fa2]:" in text
