"""The attention-module and Hopper pages keep the lesson pattern.
Typed numbers are the site-wide rule's (tests/site/test_rendered.py)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = {
    "online-softmax": "docs/kernels/attention/online-softmax.md",
    "flash-attention-forward": "docs/kernels/attention/flash-attention-forward.md",
    "prefix-scans": "docs/kernels/attention/prefix-scans-across-blocks.md",
    "hopper": "docs/kernels/matrix-multiplication/hopper-tensor-cores.md",
}


@pytest.mark.parametrize("page", PAGES.values(), ids=PAGES.keys())
def test_pages_follow_the_pattern(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert text.startswith("---\naccess: premium\n")
    assert "<!-- badge: model -->" in text and "<!-- badge: artifact -->" in text
    assert "<!-- badge: measured -->" in text
    assert "bench_pages.py:kernel_results(" in text
    assert text.count('??? info "How we know"') <= 1
    assert text.count('??? success "Answer"') >= 2
    assert "<!-- diagram: " in text and "<!-- run: " in text
    assert "## Read next" in text and "[^" in text
