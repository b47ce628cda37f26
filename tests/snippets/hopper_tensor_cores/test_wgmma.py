"""The wgmma and TMA model, by hand and against every compiled build."""

import pytest

from snippets.hopper_tensor_cores import wgmma


def test_shapes_and_counts_by_hand():
    assert wgmma.wgmma_k(2) == 16 and wgmma.wgmma_k(4) == 8 and wgmma.wgmma_k(1) == 32
    facts = wgmma.facts()
    assert (facts["shapes.m"], facts["shapes.n-to"], facts["shapes.k"]) == (
        "64",
        "256",
        "16",
    )
    # 128 x 256 x 64 over two warpgroups: each owns 64 rows, one n = 256 wide,
    # four k = 16 slices.
    assert wgmma.wgmma_per_k_step(128, 256, 64, 8, 256, 2) == 1 * 1 * 4
    assert wgmma.wgmma_per_k_step(128, 128, 64, 4, 128, 2) == 2 * 1 * 4
    assert wgmma.accumulator_registers(128, 256, 8) == 128 * 256 // 256
    with pytest.raises(ValueError, match="do not tile"):
        wgmma.wgmma_per_k_step(96, 256, 64, 4, 256, 2)  # 96 rows is not 64k
    with pytest.raises(ValueError):
        wgmma.wgmma_per_k_step(128, 256, 64, 8, 264, 2)  # n above 256


def test_tma_rules():
    ok = wgmma.tma_problems((4096, 4096), (8192,), (128, 64), 2)
    assert ok == []
    bad = wgmma.tma_problems((4096, 1020), (2040,), (128, 64), 2, address=8)
    assert len(bad) == 2 and "2040" in bad[1] and "address 8" in bad[0]
    assert any(
        "box size 512" in p for p in wgmma.tma_problems((8, 8), (16,), (512, 8), 2)
    )
    assert any("inner box" in p for p in wgmma.tma_problems((8, 8), (16,), (8, 4), 2))
    assert any(
        "rank 6" in p for p in wgmma.tma_problems((1,) * 6, (16,) * 5, (1,) * 6, 2)
    )
    facts = wgmma.facts()
    assert facts["tma.padded"] == "1,024" and facts["tma.shape"] == "4,096 × 1,020"
    padded = wgmma.tma_problems((4096, 1020), (2048,), (128, 64), 2)
    assert padded == []  # the page says: padded, the descriptor is valid


def test_shared_memory_and_persistent_schedule():
    assert wgmma.pipelined_shared_bytes(128, 256, 64, 3, 2, False) == 3 * 49152
    assert wgmma.pipelined_shared_bytes(128, 256, 64, 3, 2, True) == (
        3 * 49152 + 128 * 256 * 2 + 3 * 8
    )
    schedule = wgmma.persistent_schedule(2048, 132)
    flat = sorted(t for tiles in schedule for t in tiles)
    assert flat == list(range(2048))  # every tile once
    assert {len(t) for t in schedule} == {15, 16}
    assert wgmma.persistent_schedule(5, 132) == [[0], [1], [2], [3], [4]]
    facts = wgmma.facts()
    assert [facts[f"persistent.{k}"] for k in ("busy", "most", "rest", "least")] == [
        "68",
        "16",
        "64",
        "15",
    ]


def test_model_matches_every_pipelined_build():
    rows = wgmma.model_rows()
    assert rows, "no build with HGMMA in the matmul artifact"
    for r in rows:
        assert r["model_count"] == r["count"], r
        assert r["accumulator"] < r["registers"], r
    for r in rows:
        if r["build"] != "bf16-unaligned":  # no cp.async, so no pipeline
            assert r["model_shared"] == r["shared"], r
    assert "| yes |" in wgmma.model_table()
    # The page says: the counts agree for every build, the shared memory
    # for all but the unaligned one.
    assert wgmma.facts()["model.disagree"] == "`bf16-unaligned`"


def test_readings():
    facts = wgmma.facts()
    assert facts["builds.tma"] == "`v2-bf16-tma-persistent`"
    assert int(facts["builds.tma-registers"]) < int(facts["builds.pointer-registers"])
    assert wgmma.facts()["accumulator"].startswith("128 of its ")
    assert facts["fit.programs"] == "1"  # the page says "1 program fits"
    with pytest.raises(KeyError):
        wgmma.facts()["nope"]
    assert wgmma.facts("nope") == {"accumulator": "(not compiled yet)"}


def test_exercise_by_hand():
    facts = wgmma.facts()
    assert facts["exercise.per-step"] == "8" and facts["exercise.registers"] == "128"
    assert facts["exercise.groups"] == "1"  # "1 warpgroup owns all ... rows"
    # "as many as the 8-warp 128 x 256 tile"
    warps, m, n = wgmma.EXERCISE_SAME_AS
    assert wgmma.accumulator_registers(m, n, warps) == int(facts["exercise.registers"])


def test_figure_draws_a_band_per_warpgroup_and_a_slice_per_wgmma():
    fig = wgmma.warpgroup_figure()
    labels = [t.get_text() for t in fig.axes[0].texts]
    assert sum(t.startswith("warpgroup") for t in labels) == 2
    assert [t for t in labels if t in ("k0", "k1", "k2", "k3")] == [
        "k0",
        "k1",
        "k2",
        "k3",
    ]


def test_row_multiple():
    assert wgmma.row_multiple(2) == 8
    assert wgmma.row_multiple(4) == 4
