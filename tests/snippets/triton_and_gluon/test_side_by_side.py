"""snippets/triton_and_gluon/side_by_side.py: the table reads the committed
artifacts, the exercise answers recomputed by hand, the page's numbers."""

import pytest

import evidence
from kernels.matmul.gluon import GLUON_CONFIG
from snippets.triton_and_gluon import side_by_side as sbs
from tests.helpers.page_numbers import typed_numbers

PAGE = evidence.ROOT / "docs" / "kernels" / "below-triton" / "triton-and-gluon.md"
NAMES = {
    "sm_90a",
    "sm_100a",
    "H100",
    "H200",
    "B200-class",
    "3.6",
    "3.8",
    "tcgen05",
    "32-bit",
}


def test_the_page_types_no_numbers():
    assert typed_numbers(PAGE, NAMES) == []


def test_the_tiles_repeated_here_are_the_kernels():
    assert sbs.TILE["BLOCK_M"] == GLUON_CONFIG.BLOCK_M
    assert sbs.TILE["BLOCK_N"] == GLUON_CONFIG.BLOCK_N
    assert sbs.TILE["BLOCK_K"] == GLUON_CONFIG.BLOCK_K
    assert sbs.TILE["STAGES"] == GLUON_CONFIG.STAGES


def test_the_table_has_a_column_per_language_and_target():
    table = sbs.facts_table()
    header = table.splitlines()[0]
    for column in (
        "Triton, sm_90a",
        "Gluon, sm_90a",
        "Triton, sm_100a",
        "Gluon, sm_100a",
    ):
        assert column in header
    assert "default + 1 warp + 1 warp" in table


def test_the_rows_are_read_from_the_files():
    entry = sbs.record("gluon", "sm_100a")
    facts = sbs.build_facts(entry)
    assert facts["registers per thread"] == str(entry["registers"])
    assert facts["warp partitions"] == "default + 1 warp + 1 warp"
    assert sbs.build_facts(sbs.record("triton", "sm_100a"))["warp partitions"] == "none"


def test_a_missing_build_is_named(monkeypatch):
    monkeypatch.setattr(sbs, "GLUON_BUILD", "no-such-build")
    with pytest.raises(KeyError, match="no-such-build"):
        sbs.record("gluon", "sm_90a")


def test_exercise_1_by_hand():
    # 3 * (128 * 64 + 64 * 256) * 2 + 128 * 256 * 2 = 147,456 + 65,536.
    facts = sbs.facts()
    assert facts["ex1.tiles"] == "212,992"
    shared = int(facts["ex1.shared"].replace(",", ""))
    assert shared - 212_992 == 3 * 8 == int(facts["ex1.extra"])
    assert facts["ex1.barriers"] == "3"


def test_exercise_2_by_hand():
    # Four stages: 4 * 49,152 + 65,536 + 4 * 8 = 262,176 > 227 * 1024.
    facts = sbs.facts()
    assert facts["ex2.need"] == "262,176"
    assert facts["ex2.fits"] == "does not fit"
    assert sbs.fits_hopper(3)  # the stages the kernel uses do fit


def test_exercise_3_by_hand():
    # Two float32 accumulators of 256 columns; tensor memory has 512.
    facts = sbs.facts()
    assert (facts["ex3.columns"], facts["ex3.total"], facts["ex3.left"]) == (
        "512",
        "512",
        "0",
    )


def test_triton_36_compiled_the_hopper_build_to_the_same_facts():
    assert sbs.facts()["triton36_same"] == "the same"
    assert (
        sbs.record("gluon", "sm_90a", "3.6")["registers"]
        == sbs.record("gluon", "sm_90a")["registers"]
    )
