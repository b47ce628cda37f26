"""The attention-module and Hopper pages type no quantity: every figure in
their prose comes from code. Reuses the tiled-matmul page's checker and
also allows labels (pass 1, block 2, version 2), names with digits and the
footnote definitions (citations)."""

import re
from pathlib import Path

import pytest

from tests.snippets.tiled_matmul.test_page import stray_numbers

ROOT = Path(__file__).resolve().parents[3]
PAGES = {
    "online-softmax": "docs/kernels/attention/online-softmax.md",
    "flash-attention-forward": "docs/kernels/attention/flash-attention-forward.md",
    "prefix-scans": "docs/kernels/attention/prefix-scans-across-blocks.md",
    "hopper": "docs/kernels/matrix-multiplication/hopper-tensor-cores.md",
}
NAMES = {"base-2", "exp2", "log2", "FlashAttention-2", "FlashAttention-3",
         "FP16", "FP8", "16-bit", "64-bit", "fp16", "(sm_90a)", "sm_90a"}  # fmt: skip
LABELS = re.compile(r"\b(pass|passes|block|blocks|version|step|and)\s+\d+\b", re.I)
FOOTNOTES = re.compile(r"^\[\^[\w-]+\]:.*?(?=^\S|\Z)", re.MULTILINE | re.DOTALL)
EXERCISES = re.compile(r"\*\*\d+\.")


def page_numbers(markdown: str) -> list[str]:
    text = FOOTNOTES.sub("", markdown)
    text = EXERCISES.sub("", LABELS.sub(" ", text))
    return [token for token in stray_numbers(text) if token not in NAMES]


@pytest.mark.parametrize("page", PAGES.values(), ids=PAGES.keys())
def test_pages_type_no_numbers_and_follow_the_pattern(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert page_numbers(text) == []
    assert text.startswith("---\naccess: premium\n")
    assert "<!-- badge: model -->" in text and "<!-- badge: artifact -->" in text
    assert "<!-- badge: measured -->" in text
    assert "bench_pages.py:kernel_results(" in text
    assert text.count('??? info "How we know"') <= 1
    assert text.count('??? success "Answer"') >= 2
    assert "<!-- diagram: " in text and "<!-- run: " in text
    assert "## Read next" in text and "[^" in text


def test_the_checker_catches_a_typed_number_and_allows_labels():
    assert page_numbers("The ridge is 206 FLOP/byte.\n") == ["206"]
    assert page_numbers("In pass 3, block 2 reads version 1 with exp2.\n") == []
    assert page_numbers("x[^a].\n\n[^a]: Someone, 2016, p. 12.\n") == []
