"""The four pages of issue 18 (the memory-bound module and the Compute
Sanitizer lesson) keep the lesson pattern.
Typed numbers are the site-wide rule's (tests/site/test_rendered.py)."""

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
PAGES = [
    "kernels/memory-bound/fusion-residual-add-relu.md",
    "kernels/memory-bound/deterministic-reductions.md",
    "kernels/memory-bound/transpose-and-coalescing.md",
    "kernels/correctness/compute-sanitizer.md",
]


def roadmap_access() -> dict[str, str]:
    found = {}

    def walk(node):
        if isinstance(node, dict):
            if "path" in node and "access" in node:
                found[node["path"]] = node["access"]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(yaml.safe_load((ROOT / "docs" / "roadmap.yml").read_text()))
    return found


@pytest.mark.parametrize("page", PAGES)
def test_page_follows_the_lesson_pattern(page):
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    access = re.search(r"^access: (\w+)$", text, re.MULTILINE)[1]
    assert access == roadmap_access()[page] == "premium"
    assert text.count('??? success "Answer"') >= 2
    assert len(re.findall(r"<!-- run: snippets/\S+\.py -->", text)) == 1
    assert "<!-- diagram: snippets/" in text
    assert "## Read next" in text
    for note in set(re.findall(r"\[\^([\w-]+)\](?!:)", text)):
        assert f"[^{note}]:" in text, note
