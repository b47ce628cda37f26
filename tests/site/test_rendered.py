"""Site-wide rules on what the pages show, each with a known-bad page that
fails it:

- no placeholder marker survives the build anywhere in a page: text, code
  spans and code blocks (the contributing guide marks the ones it shows on
  purpose with ``{ .placeholder-example }``);
- every folded answer opens with words, not with a list Markdown made of a
  number at the start of a line (the audit's F4: the reader saw "1.");
- every number a page's prose states comes from a fact, an insert or a
  quoted source (checked on the Markdown, where those are still marked).

The first two read the session's one build (``built_site``).
"""

from __future__ import annotations

import re

import pytest

from scripts.site import hooks
from tests.site.rendered import answer_starts, markers, site_problems, typed_numbers
from tests.site.sitebuild import ROOT

DOCS = ROOT / "docs"


def test_no_placeholder_marker_survives_the_build(built_site):
    found = site_problems(built_site, markers)
    assert not found, found


def test_every_folded_answer_opens_with_words(built_site):
    found = site_problems(built_site, answer_starts)
    assert not found, found


@pytest.mark.parametrize(
    "html, bad",
    [
        ("<p>See <code>&lt;!-- fact: a.py:k --&gt;</code>.</p>", True),
        ("<pre><code>&lt;!-- insert: a.py:f() --&gt;</code></pre>", True),
        ("<p>BLOCK = <!-- fact: a.py:k --></p>", True),
        ("<p>&lt;!-- badge: model --&gt;</p>", True),
        (
            '<p><code class="placeholder-example">&lt;!-- fact: a.py:k --&gt;'
            "</code></p>",
            False,
        ),
        ("<p>An ordinary comment<!-- no placeholder --></p>", False),
    ],
    ids=[
        "fact-in-code-span",
        "insert-in-code-block",
        "fact-left-as-comment",
        "badge-in-text",
        "marked-example",
        "other-comment",
    ],
)
def test_the_marker_rule_fails_a_known_bad_page(tmp_path, html, bad):
    (tmp_path / "page.html").write_text(f"<html><body>{html}</body></html>")
    assert bool(site_problems(tmp_path, markers)) is bad


@pytest.mark.parametrize(
    "html, bad",
    [
        (
            '<details class="success"><summary>Answer</summary>'
            "<ol><li>The all-reduce stays 622 ms</li></ol></details>",
            True,
        ),
        (
            '<details class="success"><summary>Answer</summary>'
            "<p>It needs 2 micro-batches.</p><ol><li>a</li></ol></details>",
            False,
        ),
        (
            '<details class="note"><summary>x</summary><ul><li>a</li></ul></details>',
            False,
        ),
    ],
    ids=["number-became-a-list", "words-first", "not-an-answer"],
)
def test_the_answer_rule_fails_a_known_bad_page(tmp_path, html, bad):
    (tmp_path / "page.html").write_text(f"<html><body>{html}</body></html>")
    assert bool(site_problems(tmp_path, answer_starts)) is bad


def test_a_badge_after_a_placeholder_on_an_indented_line_is_expanded():
    # the marker rule found two: the indented-insert pattern ran on to the
    # badge after a fact and stashed it with the fact's value
    line = "    <!-- fact: a.py:k -->. <!-- badge: model -->"
    assert hooks.INDENTED_INSERT_RE.match(line) is None
    assert hooks.INDENTED_INSERT_RE.match("    <!-- fact: a.py:k -->")


# --------------------------------------------------------------------------
# Typed numbers
# --------------------------------------------------------------------------

#: Tokens with digits that are names or forms, not quantities (reviewed; a
#: word starting with a letter, such as H200 or sm_90a, is a name already).
ALLOWED = frozenset(
    {
        "8B",
        "70B",
        "405B",  # model names
        "8-bit",
        "16-bit",
        "32-bit",
        "64-bit",
        "1-D",
        "2-D",
        "3-D",  # forms
        "3.6",
        "3.8",
        "3.11",  # the Python version the project pins
        "9.0",
        "10.0",
        "12.0",  # Triton and compute capability versions
        "20th",
        "80th",  # the percentiles every timing table shows
        "2:4",  # the structured-sparsity pattern's name
        "16-byte",
        "32-byte",
        "64-byte",
        "128-byte",  # NVMMA swizzle modes and access widths, by name
        "32x32b",  # a tcgen05.ld shape's name
        "128b/130b",  # PCIe's line encoding, by name
    }
)
#: A citation's identifiers: an arXiv number or a year.
CITATION = re.compile(r"^(\d{4}\.\d{4,5}|(19|20)\d\d)$")
#: Pages written before this rule, each with the count of numbers it still
#: types: the count may only fall, and a page that is clean leaves the list
#: (every other page, and every new one, must type none). The serving pages
#: rose when their corrections (issue 48) quoted the engines' documentation
#: (vLLM's 1% watermark, SGLang's 2,048-token chunks and 30-50%, PCIe 5.0)
#: and named the runs' settings (70% of capacity, 40-56-token prompts):
#: cited, but still typed, so still to be made facts.
NOT_YET = {
    "contributing.md": 14,
    "inference/batching.md": 3,
    "inference/capacity-planning.md": 3,
    "inference/disaggregated-prefill-and-decode.md": 7,
    "inference/goodput-and-admission.md": 5,
    "inference/kv-cache-management.md": 1,
    "inference/kv-levers-gqa-mla.md": 4,
    "inference/prefix-caching-and-chunked-prefill.md": 4,
    "inference/quantisation-for-inference.md": 13,
    "inference/serving-engine.md": 4,
    "inference/speculative-decoding.md": 12,
    "interview/coalescing-a-transpose.md": 1,
    "interview/fix-int32-offset-overflow.md": 8,
    "interview/index.md": 2,
    "interview/kv-cache-and-capacity.md": 13,
    "interview/overlapping-output-ranges.md": 3,
    "interview/qualify-a-generated-kernel.md": 1,
    "interview/row-softmax.md": 2,
    "interview/training-memory.md": 6,
    "kernels/correctness/kernel-correctness-contracts.md": 18,
    "kernels/frontier/three-architectures.md": 32,
    "kernels/frontier/warp-specialisation.md": 4,
    "kernels/index.md": 5,
    "kernels/practice/elementwise.md": 1,
    "kernels/practice/find-and-fix.md": 10,
    "kernels/practice/reductions.md": 6,
    "kernels/practice/scans-and-attention.md": 2,
    "kernels/practice/tiles.md": 5,
    "kernels/to-the-service/when-torch-compile-is-enough.md": 4,
    "kernels/where-time-goes/triton-on-ramp.md": 1,
    "kernels/work-mapping/layouts-strides-offsets.md": 1,
    "projects/triton-qualification.md": 4,
    "projects/work-mapping.md": 7,
    "reference/benchmarks.md": 9,
    "reference/contributing-a-result.md": 1,
    "reference/index.md": 2,
    "reference/parallel-prefix-scan.md": 14,
}


def numbers_in(markdown: str) -> list[str]:
    return [t for t in typed_numbers(markdown, ALLOWED) if not CITATION.match(t)]


def test_no_page_types_a_number_into_its_prose():
    found = {}
    for page in sorted(DOCS.rglob("*.md")):
        rel = page.relative_to(DOCS).as_posix()
        numbers = numbers_in(page.read_text(encoding="utf-8"))
        if len(numbers) > NOT_YET.get(rel, 0):
            found[rel] = numbers
    assert not found, found


def test_the_not_yet_list_only_shrinks():
    stale = {
        rel: count
        for rel, count in NOT_YET.items()
        if not (DOCS / rel).is_file()
        or len(numbers_in((DOCS / rel).read_text(encoding="utf-8"))) < count
    }
    assert not stale, f"lower these counts (or drop the pages): {stale}"


@pytest.mark.parametrize(
    "page, typed",
    [
        ("---\naccess: free\n---\nIt takes 62 ms over NVLink.\n", ["62"]),
        ("Spread over four nodes: 622 ms, 62% of the step.\n", ["622", "62"]),
        ("On an H200 in bf16, <!-- fact: a.py:k --> per `BLOCK = 256`.\n", []),
        ('As NCCL says, "a peak busBw of ~480GB/s".[^x]\n', []),
        ("Text.[^x]\n\n[^x]: NVIDIA/nccl#687, arXiv 2104.04473, 2021.\n", []),
    ],
    ids=["typed-time", "typed-share", "fact-code-and-names", "quoted", "footnote"],
)
def test_the_number_rule_fails_a_known_bad_page(page, typed):
    assert numbers_in(page) == typed


def test_the_contributing_guide_marks_every_placeholder_it_shows():
    text = (DOCS / "contributing.md").read_text(encoding="utf-8")
    shown = re.findall(r"`<!--\s*\w+\s*:[^`\n]*`(\{[^}]*\})?", text)
    assert shown and all("placeholder-example" in attrs for attrs in shown)
