"""The kernel's key schedule visits every visible pair exactly once."""

import pytest

from snippets.flash_attention_forward import tiles


@pytest.mark.parametrize("S", [1, 7, 8, 9, 16, 23])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_every_visible_pair_once_and_no_mask_free_step_needs_a_mask(S, causal):
    block_m, block_n = 8, 4  # BLOCK_M a multiple of BLOCK_N, as the kernel needs
    seen = []
    for tile_m in range(-(-S // block_m)):
        queries = range(tile_m * block_m, min((tile_m + 1) * block_m, S))
        for n0, masked in tiles.key_steps(tile_m, S, causal, block_m, block_n):
            for q in queries:
                for k in range(n0, n0 + block_n):
                    keep = k < S and (not causal or k <= q)
                    if not masked:
                        assert keep, (S, causal, q, k)  # a mask-free step is safe
                    if keep:
                        seen.append((q, k))
    want = [(q, k) for q in range(S) for k in range(S) if not causal or k <= q]
    assert sorted(seen) == want
    assert sorted(tiles.visited_pairs(S, causal, block_m, block_n)) == want


def test_step_counts_and_table():
    v1, v2 = tiles.V1_TILES, tiles.V2_TILES
    assert tiles.step_counts(4096, False, *v1) == {
        "free": 2048,
        "masked": 0,
        "total": 2048,
    }
    causal = tiles.step_counts(4096, True, *v1)
    assert causal["masked"] == 32 * 2  # two diagonal steps per query tile
    assert causal["free"] == sum(2 * t for t in range(32))
    assert tiles.step_counts(4096, True, *v2)["masked"] == 32  # one each
    table = tiles.steps_table()
    assert "| 4,096 | full | v1: 128 × 64 | 2,048 | 0 | 0.0% |" in table
    assert "| 4,096 | causal | v2: 128 × 128 | 496 | 32 | 6.1% |" in table


def test_heavy_first_never_ends_later_and_helps_few_heads():
    for S, heads in ((4096, 64), (16384, 4), (1000, 3)):
        light = tiles.causal_makespan(S, heads, 132, False)
        heavy = tiles.causal_makespan(S, heads, 132, True)
        assert heavy <= light
    # One slot: the order cannot matter, the makespan is all the work.
    work = sum(t + 1 for t in range(8))  # square tiles: tile t does t + 1 steps
    assert tiles.causal_makespan(1024, 1, 1, True) == work
    assert tiles.causal_makespan(1024, 1, 1, False) == work
    # Two slots, tiles of 1..4 steps: ascending ends at 6, heavy first at 5.
    assert tiles.causal_makespan(512, 1, 2, False) == 6
    assert tiles.causal_makespan(512, 1, 2, True) == 5
    facts = tiles.facts()
    assert (facts["few.ascending"], facts["few.heavy"]) == ("326", "255")


def test_exercise():
    facts = tiles.facts()
    assert (facts["exercise.S"], facts["exercise.bm"], facts["exercise.bn"]) == (
        "1,000",
        "128",
        "64",
    )
    assert (facts["exercise.total"], facts["exercise.free"]) == ("72", "56")
    assert facts["exercise.masked"] == "16"


def test_figure_draws_one_cell_per_step():
    fig = tiles.tile_map_figure(S=640, causal=True)
    cells = len(fig.axes[0].patches)
    assert cells == tiles.step_counts(640, True)["total"]


def test_block_ratio():
    facts = tiles.facts()
    assert (facts["v2-block-n"], facts["v1-block-n"], facts["block-ratio"]) == (
        "128",
        "64",
        "2×",
    )
