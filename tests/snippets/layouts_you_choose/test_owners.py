"""snippets/layouts_you_choose/owners.py: the pencil models, the page's
facts, the exercise answers recomputed by hand, and the page's numbers."""

import json
from pathlib import Path

import pytest

from snippets.layouts_you_choose import owners
from tests.helpers.page_numbers import typed_numbers

PAGE = Path(owners.ROOT) / "docs" / "kernels" / "below-triton" / "layouts-you-choose.md"
#: Names with digits on the page, not quantities: targets, types, instruction
#: shapes, and the swizzle widths NVMMASharedLayout is named by.
NAMES = {
    "sm_90a",
    "sm_100a",
    "bf16",
    "float32",
    "32-bit",
    "16-bit",
    "16-byte",
    "128-byte",
    "tcgen05",
    "tcgen05.ld",
    "tcgen05.mma",
    "32x32b",
    "3.6",
    "3.8",
}


def test_the_page_types_no_numbers():
    assert typed_numbers(PAGE, NAMES) == []


def test_exercise_1_by_hand():
    # 16 x 16, tile 8 x 16: row 12 is row 4 of the second copy. Column 9:
    # warp 9 // 8 = 1, lane across (9 % 8) // 2 = 0, lane down 4 -> 4 * 4 = 16,
    # register 9 % 2 = 1, plus 2 for the second copy = 3.
    facts = owners.facts()
    assert facts["ex1.owner"] == "warp 1, lane 16, register 3"
    assert facts["ex1.regs"] == "4"


def test_exercise_2_by_hand():
    # Row 3, column 17: chunk 17 // 8 = 2, phase 3, slot 2 ^ 3 = 1;
    # offset 3 * 64 + 1 * 8 + 17 % 8 = 201.
    facts = owners.facts()
    assert (facts["ex2.offset"], facts["ex2.slot"], facts["ex2.logical"]) == (
        "201",
        "1",
        "2",
    )


def test_exercise_3_by_hand():
    # 64 rows: lanes 0-15 take rows 0-15, lanes 32-47 rows 16-31: 20 -> 36.
    assert owners.facts()["ex3.lane"] == "36"


def test_the_swizzle_spreads_a_column_over_every_bank_group():
    assert owners.bank_groups("nvmma-128") == 8
    assert owners.bank_groups("nvmma-none") == 1
    # 64-byte rows: two per 128-byte line, and the phase moves every two rows.
    assert owners.bank_groups("nvmma-64") == 8


def test_every_offset_of_a_swizzled_tile_is_used_once():
    for name in ("nvmma-128", "nvmma-64", "nvmma-a-tile", "nvmma-b-tile"):
        view = owners.model(owners.SPECS[name])
        assert sorted(view.values()) == list(range(len(view)))


def test_a_blocked_layout_holds_each_element_once():
    view = owners.model(owners.SPECS["blocked-tall"])
    assert len(set(view.values())) == len(view)


def test_a_shape_that_is_not_a_multiple_of_the_tile_is_refused():
    with pytest.raises(ValueError, match="not a multiple"):
        owners.model({**owners.SPECS["blocked"], "shape": [8, 12]})


def test_the_triton_layouts_are_parsed_from_the_artifact():
    specs = owners.triton_specs()
    assert specs["triton-mma"]["warps_per_cta"] == [8, 1]
    assert specs["triton-blocked"]["size_per_thread"] == [1, 8]
    assert owners.facts()["gluon_same_mma"] == "the same"


def test_an_unknown_ttgir_layout_is_refused():
    with pytest.raises(ValueError, match="not a blocked or nvidia_mma"):
        owners.parse_layout("#ttg.swizzled_shared<{vec = 1}>")


def test_a_malformed_layout_file_is_refused(tmp_path, monkeypatch):
    bad = tmp_path / "layouts.json"
    bad.write_text(json.dumps({"targets": {"sm_90a": {"b": {"mma": 3}}}}))
    monkeypatch.setattr(owners, "ARTIFACT_LAYOUTS", bad)
    with pytest.raises(ValueError, match="malformed"):
        owners.artifact_layouts()


def test_facts_are_strings():
    assert all(isinstance(v, str) and v for v in owners.facts().values())
