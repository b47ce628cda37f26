"""The generated reading of the matmul measurement, for every kind of result."""

import pytest

from snippets.tiled_matmul import measurement as m
from snippets.tiled_matmul.traffic import operand_request_bytes

CONFIG = {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}
LAUNCHES = [{"kernel": "matmul_v1_kernel", "constexprs": CONFIG, "num_warps": 8}]


def target(metric, at_least, shape=None):
    return {"metric": metric, "at_least": at_least, "shape": shape, "note": ""}


def cube(n):
    return {"M": n, "N": n, "K": n}


# Goals in the catalog's form (results/kernels.json), at the levels these
# tests were written against.
GOALS = [
    {
        "regime": "bf16",
        "must": [
            target("R", 0.80, cube(8192)),
            target("R", 0.70, cube(4096)),
            target("F_flop", 0.65),
        ],
        "stretch": [target("R", 0.90)],
    }
]


def row(provider, median_ms, shape=(8192, 8192, 8192), **extra):
    M, N, K = shape
    base = {
        "kernel": "matmul",
        "provider": provider,
        "shape": {"M": M, "N": N, "K": K},
        "dtype": "bfloat16",
        "timed": True,
        "status": "ok",
        "median_ms": median_ms,
    }
    if provider == "triton":
        base["launches"] = LAUNCHES
    return {**base, **extra}


def gpu_result(rows, copy_best=4.3e12):
    return {
        "identity": {"device_kind": "cuda", "started_utc": "2026-01-01T00:00:00"},
        "device": {"kind": "cuda", "name": "NVIDIA H200"},
        "software": {"torch": "2.11.0", "triton": "3.6.0"},
        "ceilings": {"copy": {"best_bandwidth_bytes_per_s": copy_best}},
        "rows": rows,
    }


def test_nothing_measured():
    text = m.reading_of(None)
    assert text.startswith("No GPU measurement of matmul has been published yet")


def test_cpu_result_is_named_as_such():
    result = {
        "identity": {"device_kind": "cpu"},
        "device": {"kind": "cpu", "name": "Test CPU"},
        "rows": [row("eager", 1.0, timed=True), row("triton", 0.0, timed=False)],
    }
    text = m.reading_of(result)
    assert "CPU run" in text and "Test CPU" in text
    assert "No GPU measurement of matmul has been published yet" in text


def test_gpu_result_phrases_the_ratios_and_goals():
    rows = [
        row("eager", 1.60),
        row("compile", 1.50),
        row("triton", 1.60, fraction_of_ceiling=0.70),
    ]
    text = m.reading_of(gpu_result(rows), GOALS)
    assert text.startswith("Measured on NVIDIA H200 with torch 2.11.0 and Triton 3.6.0")
    assert "70% of the bf16 matmul ceiling" in text
    assert "meets the goal of 65%" in text
    assert "R = 0.94 (the custom kernel is slower)" in text
    assert "which meets the goal R ≥ 0.80 for this shape" in text


def test_a_missed_goal_is_called_missed():
    rows = [row("eager", 1.0), row("triton", 2.0, fraction_of_ceiling=0.4)]
    text = m.reading_of(gpu_result(rows), GOALS)
    assert "misses the goal of 65%" in text
    assert "R = 0.50" in text and "misses the goal R ≥ 0.80" in text


def test_faster_than_hbm_means_l2_served_requests():
    # 8192^3 with 128 x 256 tiles requests about 12.9 GB of bf16 operands.
    requests = operand_request_bytes(8192, 8192, 8192, 128, 256, 2)
    median_ms = 1.5
    text = m.reading_of(gpu_result([row("triton", median_ms)], copy_best=4.3e12), GOALS)
    served = 1 - 4.3e12 * median_ms * 1e-3 / requests
    assert f"at least {served:.0%} of the requested bytes cannot have come" in text


def test_slow_enough_for_hbm_says_time_cannot_tell():
    text = m.reading_of(gpu_result([row("triton", 50.0)], copy_best=4.3e12))
    assert "HBM could have served alone" in text
    assert "DRAM byte counters" in text


def test_a_failed_custom_row_is_not_read_as_speed():
    rows = [
        row("eager", 1.0),
        row("triton", 0.1, status="implausible", reason="faster than copy"),
    ]
    text = m.reading_of(gpu_result(rows), GOALS)
    assert "status `implausible` (faster than copy)" in text
    assert "no speed is read from it" in text


def test_no_custom_row_and_no_rows():
    assert "no row for the custom kernel" in m.reading_of(gpu_result([row("eager", 1)]))
    assert "no matmul rows" in m.reading_of(gpu_result([]))


def test_shapes_without_a_goal_get_no_goal_sentence():
    rows = [
        row("eager", 1.0, shape=(1024, 1024, 1024)),
        row("triton", 1.0, (1024,) * 3),
    ]
    text = m.reading_of(gpu_result(rows), GOALS)
    assert "R = 1.00" in text and "goal R" not in text


def test_malformed_rows_fail_clearly():
    with pytest.raises(ValueError, match="no 'rows' list"):
        m.reading_of({"identity": {"device_kind": "cuda"}})
    bad = gpu_result([{"kernel": "matmul", "provider": "triton", "shape": {}}])
    with pytest.raises(ValueError, match="no M, N, K shape"):
        m.reading_of(bad)


def test_goal_levels_read_the_catalogs_must_targets():
    assert m.goal_levels(GOALS) == (
        {(8192, 8192, 8192): 0.80, (4096, 4096, 4096): 0.70},
        0.65,
    )
    assert m.goal_levels([]) == ({}, None)


def test_without_goals_no_goal_is_claimed():
    rows = [row("eager", 1.0), row("triton", 2.0, fraction_of_ceiling=0.4)]
    text = m.reading_of(gpu_result(rows))
    assert "40% of the bf16 matmul ceiling" in text and "R = 0.50" in text
    assert "goal" not in text


def test_the_tile_comes_from_the_recorded_launch():
    text = m.reading_of(gpu_result([row("triton", 50.0)]), GOALS)
    assert "Its 128 × 256 tiles request" in text
    untiled = row("triton", 50.0, launches=[])
    assert "tiles request" not in m.reading_of(gpu_result([untiled]), GOALS)
