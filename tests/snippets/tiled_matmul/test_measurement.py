"""The generated reading of the matmul measurement, for every kind of result."""

import copy
import json
from pathlib import Path

import pytest

from snippets.tiled_matmul import measurement as m
from snippets.tiled_matmul.traffic import operand_request_bytes

CONFIG = {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}


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
        base["triton_config"] = CONFIG
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
    text = m.reading_of(gpu_result(rows))
    assert text.startswith("Measured on NVIDIA H200 with torch 2.11.0 and Triton 3.6.0")
    assert "70% of the bf16 matmul ceiling" in text
    assert "meets the goal of 65%" in text
    assert "R = 0.94 (the custom kernel is slower)" in text
    assert "which meets the goal R ≥ 0.80 for this shape" in text


def test_a_missed_goal_is_called_missed():
    rows = [row("eager", 1.0), row("triton", 2.0, fraction_of_ceiling=0.4)]
    text = m.reading_of(gpu_result(rows))
    assert "misses the goal of 65%" in text
    assert "R = 0.50" in text and "misses the goal R ≥ 0.80" in text


def test_faster_than_hbm_means_l2_served_requests():
    # 8192^3 with 128 x 256 tiles requests about 12.9 GB of bf16 operands.
    requests = operand_request_bytes(8192, 8192, 8192, 128, 256, 2)
    median_ms = 1.5
    text = m.reading_of(gpu_result([row("triton", median_ms)], copy_best=4.3e12))
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
    text = m.reading_of(gpu_result(rows))
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
    text = m.reading_of(gpu_result(rows))
    assert "R = 1.00" in text and "goal R" not in text


def test_malformed_rows_fail_clearly():
    with pytest.raises(ValueError, match="no 'rows' list"):
        m.reading_of({"identity": {"device_kind": "cuda"}})
    bad = gpu_result([{"kernel": "matmul", "provider": "triton", "shape": {}}])
    with pytest.raises(ValueError, match="no M, N, K shape"):
        m.reading_of(bad)


FIXTURE = Path(__file__).parent / "fixtures" / "bench-cpu-tiny.json"


def gpu_file_from(cpu: dict, sources: dict) -> dict:
    """A GPU-shaped result built from the real CPU one, for the reader."""
    data = copy.deepcopy(cpu)
    data["identity"].update(device_kind="cuda", started_utc="2027-01-01T00:00:00")
    data["device"] = {"kind": "cuda", "name": "NVIDIA H200"}
    data["ceilings"]["copy"]["best_bandwidth_bytes_per_s"] = 4.3e12
    data["kernels"]["matmul"]["sources"] = sources
    for r in data["rows"]:
        r.update(shape={"M": 8192, "N": 8192, "K": 8192}, dtype="bfloat16")
        r.update(timed=True, status="ok", median_ms=1.6, p20_ms=1.5, p80_ms=1.7)
        r.update(first_call_ms=9.0, samples_ms=[1.6], timer="cuda-event")
        r["fraction_of_ceiling"] = 0.7
        if r["provider"] == "triton":
            r["triton_config"] = CONFIG
    return data


def test_reading_reads_the_file_the_table_shows(tmp_path):
    from scripts.bench_embed import current_sources

    cpu = json.loads(FIXTURE.read_text())
    assert "No GPU measurement" in m.reading(tmp_path)
    (tmp_path / "cpu.json").write_text(json.dumps(cpu))
    assert "CPU run" in m.reading(tmp_path)
    gpu = gpu_file_from(cpu, current_sources("matmul"))
    (tmp_path / "gpu.json").write_text(json.dumps(gpu))
    text = m.reading(tmp_path)
    assert text.startswith("Measured on NVIDIA H200")
    assert "older version" not in text
    gpu["kernels"]["matmul"]["sources"] = {"kernels/matmul.py": "0" * 64}
    (tmp_path / "gpu.json").write_text(json.dumps(gpu))
    assert "from an older version of the kernel" in m.reading(tmp_path)
