"""Published measurements (evidence/published.py): complete, tagged, apart."""

import dataclasses
import re
from pathlib import Path

import pytest

from evidence import published
from evidence.published import FIGURES, mixing_problems, problems

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("key", list(FIGURES))
def test_every_figure_names_source_device_software_shape_and_date(key):
    assert problems(key, FIGURES[key]) == []


def test_an_incomplete_entry_is_caught():
    good = FIGURES["fa3-fp16-forward"]
    assert problems("x", dataclasses.replace(good, where=" ")) == ["x: no where"]
    assert problems("x", dataclasses.replace(good, date="July 2024")) == [
        "x: date 'July 2024' is not YYYY-MM"
    ]
    assert problems("x", dataclasses.replace(good, value=0))
    assert problems("x", dataclasses.replace(good, qualifier="roughly"))


def test_the_renderer_tags_every_figure_as_published():
    text = published.published_text("fa3-fp16-forward")
    assert text == "up to 740 TFLOP/s (published: FlashAttention-3 paper, H100 SXM5)"
    table = published.published_table(*FIGURES)
    rows = table.strip().splitlines()[2:]
    assert len(rows) == len(FIGURES)
    assert all("| published: " in row for row in rows)
    with pytest.raises(KeyError, match="no published figure"):
        published.published_text("nope")


PALM = '<!-- insert: evidence/published.py:published_text("palm-540b") -->'
BAD_PAGES = {
    "same line": f"{PALM}"
    ' against <!-- insert: scripts/site/bench_pages.py:kernel_results("scan") -->'
    " <!-- badge: published -->",
    "our table": "| ours | <!-- badge: measured --> |\n"
    f"| theirs | {PALM} <!-- badge: published --> |",
    "no badge": f"MFU was {PALM}.",
}


@pytest.mark.parametrize("case", list(BAD_PAGES))
def test_mixing_a_published_figure_with_ours_is_caught(case):
    assert mixing_problems(BAD_PAGES[case]) != []


def test_no_page_mixes_published_figures_with_ours():
    found = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        found += mixing_problems(page.read_text(encoding="utf-8"), page.name)
    assert found == []


def test_no_code_reads_published_figures_so_no_goal_or_plot_can():
    # Pages show them through placeholders; no module imports them, so no
    # goal, benchmark table or plot series can take one for our evidence.
    importers = []
    for path in ROOT.glob("**/*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith((".venv/", "node_modules/", "tests/")) or rel == (
            "evidence/published.py"
        ):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if re.search(r"evidence\.published|from evidence import .*\bpublished\b", text):
            importers.append(rel)
    assert importers == []


def test_at_least_eight_figures_on_the_kernel_and_foundations_pages():
    counts = published.pages_using_published()
    placed = sum(
        n for page, n in counts.items() if page.startswith(("kernels/", "foundations/"))
    )
    assert placed >= 8, counts


def test_a_published_bandwidth_is_stated_as_a_share_of_its_line_rate():
    from evidence.published import published_share

    assert published_share("nccl-nvlink-ring-busbw") == "82%"  # 370 of 450
    assert published_share("nccl-nic-200g-busbw") == "96%"  # 24 of 25
    with pytest.raises(ValueError, match="line rate"):
        published_share("fa3-fp16-forward")  # not a bandwidth
