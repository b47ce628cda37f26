"""Rules every built page keeps: at most one collapsed "How we know" block;
each "Run it yourself" box shows the standard command and what it prints;
the glossary defines every term a learner searches for, with working links."""

from __future__ import annotations

import re

import pytest

from scripts.site.glossary import load_terms
from scripts.site.roadmap import iter_entries, load_roadmap
from tests.site.answers import leaks
from tests.site.displayed import page_blocks

HOW_WE_KNOW_RE = re.compile(r"<summary>How we know</summary>")
RUN_COMMAND_RE = re.compile(
    r"^TRITON_INTERPRET=1 \.venv/bin/python -m snippets(\.\w+)+\n?$"
)
REQUIRED_TERMS = [
    "occupancy", "Nsight Systems", "Nsight Compute", "prefill", "decode", "TTFT",
    "TPOT", "Little's law", "CUDA graph", "swizzle", "torch.profiler", "roofline",
    "arithmetic intensity", "ridge point", "wave", "tail effect", "coalescing",
    "bank conflict", "warp", "warpgroup", "wgmma", "TMA", "split-K", "Stream-K",
    "KV cache", "continuous batching", "paged attention", "MFU", "Amdahl's law",
    "L2 flush", "CUDA events", "memcheck", "racecheck", "decoupled look-back",
    "online softmax", "FlashAttention", "register spill",
]  # fmt: skip


def built_pages(site):
    for path in sorted(site.rglob("index.html")):
        rel = path.parent.relative_to(site).as_posix()
        if not rel.startswith(("src", "search", "bench")) and rel != "404":
            yield rel, path.read_text(encoding="utf-8")


def test_at_most_one_how_we_know_block_per_page(built_site):
    crowded = {
        rel: n
        for rel, html in built_pages(built_site)
        if (n := len(HOW_WE_KNOW_RE.findall(html))) > 1
    }
    assert not crowded, f'pages with more than one "How we know" block: {crowded}'


def test_provenance_is_a_tag_not_a_box(built_site):
    # Evidence is a one-line tag at the claim; the rest goes in the fold.
    boxed = [
        rel
        for rel, html in built_pages(built_site)
        if re.search(r'<p class="admonition-title">Evidence', html)
    ]
    assert not boxed, f"pages with an Evidence box instead of a tag: {boxed}"


SCIENTIFIC_WITH_UNIT_RE = re.compile(
    r"\d(?:\.\d+)?e[+-]\d+\s*(?:ms|µs|ns|s|B|kB|MB|GB|FLOPs?)\b"
)


def test_quantities_are_never_printed_in_scientific_notation(built_site):
    # "2.11e+03 ms" reads badly: a quantity picks the unit that fits instead.
    found = []
    for rel, html in built_pages(built_site):
        prose = re.sub(r"<(pre|code|svg)[\s\S]*?</\1>", " ", html)
        text = re.sub(r"<[^>]+>", " ", prose)
        found += [
            f"{rel}: {m.group(0)}" for m in SCIENTIFIC_WITH_UNIT_RE.finditer(text)
        ]
    assert not found, found


def test_every_lesson_runs_something_and_points_onward(built_site):
    # Issue 15's rules, kept for every page the roadmap adds later.
    missing = []
    for entry in iter_entries(load_roadmap()):
        path = entry["path"]
        if entry["kind"] not in ("lesson", "project", "exercise"):
            continue
        if not path.endswith(".md"):
            continue  # the notebook runs as a whole
        page = built_site / path.removesuffix(".md") / "index.html"
        if not page.is_file():
            continue  # planned
        html = page.read_text(encoding="utf-8")
        if 'admonition-title">Run it yourself<' not in html:
            missing.append(f"{path}: no Run it yourself box")
        if not re.search(r"<h2[^>]*>Read next", html):
            missing.append(f"{path}: no Read next section")
        if "<details" not in html:
            missing.append(f"{path}: no folded answer")
    assert not missing, missing


def test_run_boxes_show_the_standard_command_and_its_output(built_site):
    boxes = 0
    for rel, html in built_pages(built_site):
        for part in html.split('<p class="admonition-title">Run it yourself</p>')[1:]:
            boxes += 1
            box = part[: part.index("The whole file:")]
            blocks = page_blocks(box, rel)
            assert blocks[0].lang == "bash", rel
            assert RUN_COMMAND_RE.match(blocks[0].code), (rel, blocks[0].code)
            # What it prints is folded, closed, so no exercise below is
            # answered by an open box above it.
            fold = re.search(
                r'<details class="note">\s*<summary>What it prints</summary>(.*)',
                box,
                re.S,
            )
            assert fold, f"{rel}: a run box's output is not folded"
            assert re.sub(r"<[^>]+>", "", fold[1]).strip(), f"{rel}: prints nothing"
            end = part.index("The whole file:")
            assert "How to run the code" in part[end : end + 600], rel
    assert boxes >= 1


@pytest.fixture(scope="module")
def glossary_html(built_site) -> str:
    return (built_site / "reference" / "glossary" / "index.html").read_text(
        encoding="utf-8"
    )


def test_glossary_defines_each_searched_term(glossary_html):
    headings = [
        re.sub(r"<[^>]+>", "", h).replace("&#39;", "'").replace("&para;", "").strip()
        for h in re.findall(r"<h2[^>]*>(.*?)</h2>", glossary_html, re.S)
    ]
    lowered = [h.casefold() for h in headings]
    missing = [t for t in REQUIRED_TERMS if not any(t.casefold() in h for h in lowered)]
    assert not missing, f"glossary lacks {missing}"
    assert len(headings) == len(load_terms())


def test_glossary_links_resolve_to_built_pages(built_site, glossary_html):
    page = built_site / "reference" / "glossary"
    article = glossary_html[glossary_html.index("<article") :]
    hrefs = set(re.findall(r'href="(\.\./[^"#]+)"', article))
    assert hrefs, "the glossary links to no lesson"
    for href in hrefs:
        assert (page / href / "index.html").resolve().is_file(), href


# The inference helper's pages (issue 35) fix their own run boxes; until that
# lands, they are reported, not failed.
ANSWERS_FIXED_ELSEWHERE = (
    "inference/kv-cache-management",
    "inference/request-latency",
    "inference/batching",
    "inference/capacity-planning",
    "inference/serving-engine",
)


def test_no_run_box_or_predict_box_gives_an_exercise_answer_away(built_site):
    found, elsewhere = [], []
    for rel, html in built_pages(built_site):
        for leak in leaks(html):
            (elsewhere if rel in ANSWERS_FIXED_ELSEWHERE else found).append(
                f"/{rel}/: {leak}"
            )
    if elsewhere:
        print("answers given away on pages fixed elsewhere:", *elsewhere, sep="\n  ")
    assert not found, "\n".join(found)


def test_the_answer_check_catches_an_answer_that_repeats_a_printed_line():
    # The numbers are in the lesson's prose too (a table above), which
    # excuses them; the answer repeating the run box's line word for word
    # does not.
    line = "12 block(s) per SM, 48 of 64 warps: occupancy 75.0%"
    page = (
        f"<article><h2>Worked</h2><p>A table: 12, 48, 75.0%.</p>"
        '<div class="admonition example"><details class="note">'
        f"<summary>What it prints</summary><pre><code>{line}\nother</code></pre>"
        "</details></div><h2>Exercises</h2><p>How many blocks fit?</p>"
        '<details class="success"><summary>Answer</summary>'
        f"<p>{line}, limited by registers.</p></details></article>"
    )
    assert leaks(page) == [f'answer 1 (Answer): "{line}"']
    # The same numbers in the answer's own words are not a repeated line.
    reworded = page.replace(f"<p>{line}, limited", "<p>12 blocks, 48 warps: 75.0%,")
    assert leaks(reworded) == []


def test_the_answer_check_catches_a_run_box_that_prints_the_answer():
    page = (
        "<article><h2>Worked</h2><p>The cap is 1.25×.</p>"
        '<div class="admonition example"><details class="note">'
        "<summary>What it prints</summary><pre>cap: 1.25×\nrequired: 4.333</pre>"
        "</details></div><h2>Exercises</h2><p>How much faster must it be?</p>"
        '<details class="success"><summary>Answer</summary>'
        "<p>Recall 1.25×; it must be 4.333 times faster.</p></details></article>"
    )
    assert leaks(page) == ["answer 1 (Answer): 4.333"]
    assert leaks(page.replace("required: 4.333", "")) == []
    phrase = page.replace("<p>Recall", "<p><strong>Choose Stream-K</strong>. Recall")
    phrase = phrase.replace("required: 4.333", "Choose Stream-K")
    assert leaks(phrase) == ["answer 1 (Answer): Choose Stream-K"]
