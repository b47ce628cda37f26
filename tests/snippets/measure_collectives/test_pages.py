"""The four "Beyond one GPU" pages follow the lesson pattern
(typed numbers: the site-wide rule in tests/site/test_rendered.py)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FOLDER = ROOT / "docs" / "foundations" / "beyond-one-gpu"
PAGES = [
    "collectives-and-their-cost.md",
    "parallelism-budgets.md",
    "overlapping-communication.md",
    "measure-collectives.md",
]


@pytest.mark.parametrize("name", PAGES)
def test_the_page_follows_the_pattern(name):
    text = (FOLDER / name).read_text(encoding="utf-8")
    assert text.count('??? success "Answer"') >= 3
    assert (
        "<!-- run: snippets/" in text
        and "<!-- diagram: snippets/" in text
        or (name == "parallelism-budgets.md")
    )
    assert "\n## Read next\n" in text
    assert "<!-- badge: " in text
