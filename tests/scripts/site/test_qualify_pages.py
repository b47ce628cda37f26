"""The comparison runner and the page text built from committed results
(scripts/qualify_report.py)."""

import json

import pytest
import torch

from scripts import qualify_report as report


def identity_compiler(fn, dynamic):
    return fn


def test_comparison_times_baselines_and_only_checks_the_kernel_on_cpu():
    data = report.run_comparison(
        "cpu", shapes=[(3, 5)], rounds=2, repeats=2, warmup_ms=0.0,
        compiler=identity_compiler,
    )  # fmt: skip
    (row,) = data["rows"]
    assert set(row["timings"]) == {"eager", "compile"}  # the kernel is not timed
    assert row["custom"] == {"evidence": "triton-interpreter", "timed": False,
                             "correct": True}  # fmt: skip
    for timing in row["timings"].values():
        assert len(timing["samples_ms"]) == 4 and timing["timer"] == "host-perf-counter"
    assert all(row["correct_before"].values()) and all(row["correct_after"].values())
    assert set(row["first_call_ms"]) == {"eager", "compile"}


def test_the_committed_cpu_comparison_is_complete_and_never_times_the_kernel():
    data = report.committed("comparison")
    assert data["device"] == "cpu" and data["timer"] == "host-perf-counter"
    assert [tuple(r["shape"]) for r in data["rows"]] == report.COMPARISON_SHAPES["cpu"]
    rounds, repeats = report.COMPARISON_ROUNDS["cpu"]
    for row in data["rows"]:
        assert "custom" not in row["timings"] and row["custom"]["timed"] is False
        assert row["custom"]["correct"]
        assert all(row["correct_before"].values()) and all(
            row["correct_after"].values()
        )
        for timing in row["timings"].values():
            assert len(timing["samples_ms"]) == rounds * repeats


def test_exact_comparison_counts_nan_positions():
    expected = torch.tensor([1.0, float("nan")])
    assert report._exact(torch.tensor([1.0, float("nan")]), expected)
    assert not report._exact(torch.tensor([1.0, 0.0]), expected)


def test_memo_says_plainly_that_no_device_comparison_exists():
    if report.load_json(report.result_path("comparison", "cuda")) is not None:
        pytest.skip("a device comparison is committed")
    assert "has not been run" in report.memo_device_status()
    assert report.memo_recommendation().startswith(
        "**Keep the compiled baseline (`torch.compile`)"
    )


def test_gpu_recommendation_follows_the_ratio():
    def row(eager, compiled, custom):
        medians = {"eager": eager, "compile": compiled, "custom": custom}
        return {
            "shape": [8, 8],
            "timings": {k: {"median_ms": v} for k, v in medians.items()},
        }

    slower = report._gpu_recommendation({"rows": [row(2.0, 1.0, 1.25)]})
    assert slower.startswith("**Keep the compiled baseline: it wins at 1 of 1")
    assert "R = min(eager, compile) / custom = 0.800" in slower
    faster = report._gpu_recommendation({"rows": [row(2.0, 1.0, 0.9)]})
    assert faster.startswith("**Use the custom kernel")


def test_memo_identity_names_the_hashes_and_whether_they_are_current():
    text = report.memo_identity()
    verdict = report.committed("residual_add_relu")
    assert verdict["sha256"] in text
    assert "matches the file today" in text


def test_printed_failure_is_a_text_block_ending_with_the_verdict():
    block = report.printed_failure("broken_nan_to_zero")
    assert block.startswith("```text\n") and block.endswith("```\n")
    assert "verdict: REJECTED: check nan-mask failed on case nan-inf-float32" in block


def test_every_round_is_shown():
    data = report.committed("comparison")
    text = report.memo_rounds()
    rounds = data["rows"][0]["timings"]["eager"]["rounds"]
    lines = [line for line in text.splitlines() if line.startswith("| eager |")]
    assert len(lines) == rounds * len(data["rows"])


def test_memo_reads_a_device_comparison_when_one_is_committed(monkeypatch):
    cpu = report.committed("comparison")
    gpu = json.loads(json.dumps(cpu))
    gpu.update(device="cuda", device_name="Test GPU", timer="cuda-event")
    for row in gpu["rows"]:
        row["timings"]["custom"] = dict(row["timings"]["compile"])
        row["timings"]["custom"]["median_ms"] *= 2  # slower than compile
        row.pop("custom")
    monkeypatch.setattr(report, "_device_comparison", lambda: gpu)
    assert report.memo_recommendation().startswith("**Keep the compiled baseline")
    assert "Test GPU" in report.memo_results_caption()
    assert "cuda-event" in report.memo_timing_boundary()
    assert "interpreter" not in report.memo_results()
