"""snippets/transpose_and_coalescing/order.py: the first wave's output rows
in row order and in grouped order, checked by hand."""

import pytest

from snippets.transpose_and_coalescing import order


def test_first_wave_by_hand():
    # 4 x 4 of 2-byte values in 2 x 2 tiles, two programs at once. Row
    # order: tiles (0, 0) and (0, 1), so all four output rows get 2 values.
    row_order = order.first_wave(4, 4, 2, 2, 1, programs=2, itemsize=2)
    assert (row_order["rows"], row_order["bytes_per_row"]) == (4, 4)
    # Grouped by two tile rows: tiles (0, 0) and (1, 0), so output rows 0
    # and 1 get the whole 4 values each.
    grouped = order.first_wave(4, 4, 2, 2, 2, programs=2, itemsize=2)
    assert (grouped["rows"], grouped["bytes_per_row"]) == (2, 8)


def test_a_ragged_edge_counts_only_the_elements_that_exist():
    # 3 x 3 in 2 x 2 tiles, all four programs: every output row gets 3.
    wave = order.first_wave(3, 3, 2, 2, 2, programs=10, itemsize=4)
    assert wave == {"programs": 4, "rows": 3, "bytes_per_row": 12}


def test_a_group_below_one_is_refused():
    with pytest.raises(ValueError, match="group_m must be >= 1"):
        order.first_wave(4, 4, 2, 2, 0, programs=2, itemsize=2)


def test_residency_from_the_builds_by_hand():
    # tiled-bf16: 34 registers x 4 warps -> 12 blocks an SM (registers bind);
    # grouped-bf16: 34 x 8 warps -> 6. The same 48 warps either way.
    from evidence.artifacts import build

    v2 = build("transpose", "tiled-bf16")
    v3 = build("transpose", "grouped-bf16")
    assert (v2["registers"], v2["num_warps"]) == (34, 4)
    assert (v3["registers"], v3["num_warps"]) == (34, 8)
    assert order.resident_programs(v2, sm_count=1) == 12
    assert order.resident_programs(v3, sm_count=1) == 6


def test_grouped_order_gives_each_row_more_bytes_at_the_wide_shape():
    facts = order.facts()
    assert float(facts["ratio"]) > 1
    assert facts["group"] == "8"
    assert order.order_table().count("\n") == 1 + 2 * len(order.SHAPES)


def test_exercise_wider_tiles_alone_leave_the_stretch_unchanged():
    facts = order.facts()
    assert facts["group-1-bytes"] == facts["v2-bytes"]
    assert facts["group-1-rows"] != facts["v3-rows"]
    assert float(facts["v3-bytes"].replace(",", "")) > float(
        facts["group-1-bytes"].replace(",", "")
    )
