"""The four "Beyond one GPU" pages type no number and follow the lesson
pattern; a typed number is caught."""

from pathlib import Path

import pytest

from tests.snippets.memory_budgets_for_training.test_page import NAMES, stray_numbers

ROOT = Path(__file__).resolve().parents[3]
FOLDER = ROOT / "docs" / "foundations" / "beyond-one-gpu"
PAGES = [
    "collectives-and-their-cost.md",
    "parallelism-budgets.md",
    "overlapping-communication.md",
    "measure-collectives.md",
]
# Names, versions and citation details on these pages, not quantities.
OURS = {
    "NDR",
    "ZeRO-3",
    "NCCL",
    "ConnectX-7",
    "1F1B",
    "1909.08053",
    "2304.11277",
    "1811.06965",
    "2104.04473",
    "2006.16668",
    "2101.03961",
    "2006.15704",
    "2005",
    "1994",
    "2019",
    "2021",
    "2.4",
    "CS-2",
    "log2(n)",
    "top-",
    "212",  # NVIDIA/nccl-tests#212, and the NCCL issues below
    "687",
    "569",
    "530",
}


def stray(text: str) -> list[str]:
    return [t for t in stray_numbers(text) if t not in OURS and t not in NAMES]


@pytest.mark.parametrize("name", PAGES)
def test_the_page_types_no_number_and_follows_the_pattern(name):
    text = (FOLDER / name).read_text(encoding="utf-8")
    assert stray(text) == []
    assert text.count('??? success "Answer"') >= 3
    assert (
        "<!-- run: snippets/" in text
        and "<!-- diagram: snippets/" in text
        or (name == "parallelism-budgets.md")
    )
    assert "\n## Read next\n" in text
    assert "<!-- badge: " in text


def test_a_typed_number_is_caught():
    assert stray("---\naccess: free\n---\nIt takes 62 ms over NVLink.\n") == ["62"]
