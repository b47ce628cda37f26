"""Coalescing and fusion counts (snippets/tiled_matmul/claims.py). The pencil
model of program order is tested in test_program_order.py."""

import pytest

from snippets.tiled_matmul import claims


def test_contiguous_bf16_warp_touches_two_sectors():
    assert claims.warp_sectors(1, 2) == 2
    assert claims.warp_sectors(1, 4) == 4


def test_row_stride_touches_one_sector_per_lane():
    assert claims.warp_sectors(4096, 2) == 32


def test_useful_bytes_do_not_depend_on_the_layout():
    assert claims.useful_bytes_per_warp(2) == 64
    facts = claims.facts()
    assert (facts["along"], facts["useful"]) == ("2 sectors (64 bytes)", "64")
    assert facts["down"] == "32 sectors (1024 bytes)"


def test_stride_two_in_bf16_still_fits_four_sectors():
    # 32 lanes 4 bytes apart cover 128 bytes: four sectors, half of it unused.
    assert claims.warp_sectors(2, 2) == 4


def test_fusion_removes_one_write_and_one_read_of_c():
    assert claims.unfused_epilogue_extra_bytes(4096, 4096, 2) == 2 * 4096 * 4096 * 2
    assert claims.facts()["fusion.bytes"] == "67,108,864 bytes (67.1 MB)"


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: claims.warp_sectors(0, 2), "stride_elements"),
        (lambda: claims.warp_sectors(1, 0), "itemsize"),
        (lambda: claims.unfused_epilogue_extra_bytes(0, 4, 2), "M"),
    ],
    ids=["stride", "itemsize", "fusion-M"],
)
def test_bad_input_names_what_was_wrong(call, words):
    with pytest.raises(ValueError, match=words):
        call()
