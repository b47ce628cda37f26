"""Scheduling waves: counts, the partial last wave, and the GEMM example."""

from kernels.devices import H200
from snippets.lib.waves import (
    Waves,
    blocks_floor_divided,
    blocks_needed,
    fmt_gemm_tile,
    gemm_work_units,
    h200_wave_table,
    unowned_items,
    wave_table,
)


def test_schedule_has_one_partial_last_wave():
    waves = Waves(sm_count=132, blocks_per_sm=2, grid_size=300)
    assert waves.slots == 264
    assert waves.sizes == [264, 36]
    assert waves.count == 2
    assert waves.utilisation == 300 / 528
    # An exact multiple has no partial wave; one block more adds a wave.
    assert Waves(132, 1, 264).sizes == [132, 132]
    assert Waves(132, 1, 265).sizes == [132, 132, 1]
    for grid in (1, 131, 132, 133, 1000):
        assert sum(Waves(132, 3, grid).sizes) == grid


def test_gemm_tile_and_split_change_the_waves():
    # 2304 x 2304 output on 132 SMs, one 128 x 256 tile per SM: 9 x 18
    # tiles, a full wave and a partial one.
    wide = Waves(132, 1, gemm_work_units(2304, 2304, 128, 256))
    assert wide.sizes == [132, 30]
    # Smaller tiles or a two-way split of K give more, smaller work units
    # and fill the last wave better.
    narrow = Waves(132, 1, gemm_work_units(2304, 2304, 64, 128))
    split = Waves(132, 1, gemm_work_units(2304, 2304, 128, 128, split_k=2))
    assert narrow.sizes == split.sizes == [132] * 4 + [120]
    assert wide.utilisation < narrow.utilisation
    # The exercise's tile: 18 x 9 tiles again, so the same two waves.
    assert fmt_gemm_tile(256, 128) == fmt_gemm_tile(128, 256).replace(
        "128 x 256", "256 x 128"
    )
    assert "162 blocks in 2 waves of `[132, 30]`" in fmt_gemm_tile(256, 128)
    # Edge tiles count whole: 100 rows in 64-row tiles is two tiles.
    assert gemm_work_units(100, 64, 64, 64) == 2


def test_floor_divided_grid_leaves_tail_unowned():
    assert blocks_needed(1000, 128) == 8
    assert list(unowned_items(1000, 128, blocks_needed(1000, 128))) == []
    # The broken grid must be caught: items 896..999 have no owner.
    broken = blocks_floor_divided(1000, 128)
    assert broken == 7
    assert unowned_items(1000, 128, broken) == range(896, 1000)
    # When the size happens to divide evenly the bug hides.
    assert blocks_floor_divided(1024, 128) == blocks_needed(1024, 128)


def test_h200_wave_table_is_the_page_example():
    # The page's table: 132 SMs x 2 blocks, grids around one and two waves.
    assert h200_wave_table(2) == wave_table(132, 2, [200, 264, 265, 300, 528])


def test_facts_state_the_gemm_example():
    from snippets.lib.waves import facts

    values = facts()
    assert int(values["blocks"]) == int(values["waves"]) * int(
        values["sm_count"]
    ) - int(values["idle_in_last_wave"])
    assert values["sm_count"] == str(H200.sm_count)
