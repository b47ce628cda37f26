"""The benchmark harness (scripts/bench/runner.py, run through
scripts/bench/__main__.py) on the CPU.

One tiny sweep of one kernel runs the whole CPU path (torch.compile included,
which costs seconds on first use); the rest tests the pieces directly.
"""

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import kernels.residual_add_relu as module
from evidence import benchmarks, sha256_file
from evidence.method import METHOD
from kernels.descriptor import discover
from scripts.bench import __main__ as cli
from scripts.bench import runner as bench
from scripts.site import bench_pages
from tests.helpers.shared import once_per_session, shared_dir

ROOT = Path(__file__).resolve().parents[3]
SWEEP = ["residual_add_relu", "--device", "cpu", "--profile", "tiny"]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """Two runs of the tiny CPU sweep into one folder, made once per session
    by whichever xdist worker asks first."""
    out = shared_dir(tmp_path_factory) / "bench-two-runs"

    def sweep_twice() -> dict:
        out.mkdir()
        args = [*SWEEP, "--out", str(out), "--no-progress", "--seed", "11"]
        first_code = cli.main(args)
        first = sorted(out.glob("*.json"))[0]
        first_bytes = first.read_bytes().hex()
        second_code = cli.main(args)
        return {"codes": [first_code, second_code], "first": str(first),
                "first_bytes": first_bytes}  # fmt: skip

    done = once_per_session(tmp_path_factory, "bench-two-runs", sweep_twice)
    first_code, second_code = done["codes"]
    first_bytes = bytes.fromhex(done["first_bytes"])
    return out, first_code, second_code, Path(done["first"]), first_bytes


def test_cpu_sweep_writes_a_valid_cpu_file(two_runs):
    out, code, _, path, _ = two_runs
    assert code == bench.EXIT_OK
    result = benchmarks.load_result(path)  # validates every field
    data = result.data
    assert data["run_status"] == "complete"
    assert data["identity"]["device_kind"] == "cpu"
    assert data["identity"]["argv"][:5] == SWEEP
    assert "-cpu-tiny-" in path.name
    assert data["settings"]["timer"] == "host-perf-counter"
    assert set(data["ceilings"]) >= {"copy", "matmul"}
    assert data["schema_version"] == 2
    digest = sha256_file(ROOT / "kernels" / "residual_add_relu.py")
    sources = data["kernels"]["residual_add_relu"]["sources"]
    assert sources == {"kernels/residual_add_relu.py": digest}
    rows = {r["provider"]: r for r in data["rows"]}
    assert set(rows) == {"eager", "compile", "triton"}
    for name in ("eager", "compile"):
        row = rows[name]
        assert row["timed"] and row["status"] == "ok" and row["correct"]
        assert row["correct_after_timing"]
        assert len(row["samples_ms"]) == row["rounds"] * row["repeats"]
        assert row["p20_ms"] <= row["median_ms"] <= row["p80_ms"]
        assert row["labels"] == ["CPU host timing"]
        assert row["fraction_of_ceiling"] is None
        assert row["warmup_ms"] >= METHOD["warmup_ms"]
    triton = rows["triton"]
    assert triton["status"] == "interpreter-correctness-only" and triton["correct"]
    assert not triton["timed"]
    assert not {"median_ms", "samples_ms", "first_call_ms"} & set(triton)
    # What really launched during the correctness call, as the launcher's
    # own config says it would.
    assert triton["launches"][0]["constexprs"]["BLOCK_SIZE"] > 0
    expected = module.DESCRIPTOR.launch_config(torch.float32, {"rows": 3, "cols": 1031})
    assert triton["launches"] == [launch.record() for launch in expected]
    assert "triton_config" not in triton
    text = bench_pages.kernel_results("residual_add_relu", results_dir=out)
    assert "*CPU run, host timers: not device speed." in text


def test_second_run_never_overwrites_the_first(two_runs):
    out, _, second_code, first_path, first_bytes = two_runs
    assert second_code == bench.EXIT_OK
    files = sorted(out.glob("*.json"))
    assert len(files) == 2
    assert first_path.read_bytes() == first_bytes
    assert not list(out.glob(".*.tmp"))  # no temporary file left behind


def gpu_rows(medians, bytes_moved=3_000_000_000, working_set=3_000_000_000):
    base = {
        "kernel": "residual_add_relu",
        "shape": {"n": 1 << 20},
        "dtype": "bfloat16",
        "bytes_moved": bytes_moved,
        "flops": 1,
        "working_set_bytes": working_set,
        "timed": True,
        "status": "ok",
    }
    kinds = {"eager": "eager", "compile": "compile", "triton": "triton"}
    return [
        {**base, "provider": p, "provider_kind": kinds[p], "median_ms": m}
        for p, m in medians.items()
    ]


CEILINGS = {
    "copy": {"bandwidth_bytes_per_s": 4e12, "best_bandwidth_bytes_per_s": 4e12},
    "matmul": {"flop_rate_per_s": 8e14},
}


def test_impossible_time_is_flagged_not_published():
    spec = module.DESCRIPTOR
    # 3 GB cannot move in 0.3 ms at 4 TB/s (0.75 ms at least).
    rows = gpu_rows({"eager": 1.3, "compile": 0.8, "triton": 0.3})
    bench.finish_rows(spec, rows, "cuda", CEILINGS, 60_000_000)
    triton = rows[2]
    assert triton["status"] == bench.STATUS_IMPLAUSIBLE
    assert not triton["plausible"]
    assert any(f.startswith("impossible") for f in triton["flags"])
    assert any(f.startswith("suspect") for f in triton["flags"])
    assert rows[0]["plausible"] and rows[0]["status"] == "ok"
    assert rows[0]["labels"] == ["HBM-bound"]
    assert rows[1]["fraction_of_ceiling"] == pytest.approx(3e9 / 0.8e-3 / 4e12)


def test_a_read_only_kernel_is_judged_against_the_read_probe():
    reduction = discover()["reduction"]
    ceilings = {
        **CEILINGS,
        "read": {"bandwidth_bytes_per_s": 5e12, "best_bandwidth_bytes_per_s": 5e12},
    }
    # 3 GB in 0.7 ms is 4.3 TB/s: faster than the copy, possible as a read.
    rows = gpu_rows({"eager": 1.3, "compile": 0.8, "triton": 0.7})
    bench.finish_rows(reduction, rows, "cuda", ceilings, 60_000_000)
    triton = rows[2]
    assert triton["plausible"], triton["flags"]
    assert triton["fraction_of_ceiling"] == pytest.approx(3e9 / 0.7e-3 / 5e12)


def test_an_odd_length_is_labelled_unaligned():
    rows = gpu_rows({"eager": 1.3, "compile": 0.8, "triton": 0.78})
    for row in rows:
        row["shape"] = {"n": (1 << 20) + 1}
    bench.finish_rows(module.DESCRIPTOR, rows, "cuda", CEILINGS, 60_000_000)
    assert rows[0]["labels"] == ["HBM-bound", "unaligned"]


def test_plausible_speedups_are_not_flagged():
    spec = module.DESCRIPTOR
    rows = gpu_rows({"eager": 1.3, "compile": 0.8, "triton": 0.78})
    bench.finish_rows(spec, rows, "cuda", CEILINGS, 60_000_000)
    assert all(r["flags"] == [] and r["status"] == "ok" for r in rows)


def test_check_output_rejects_wrong_values_shapes_dtypes_and_nan():
    truth = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)
    bound = 1e-6 * truth.abs()
    good = torch.tensor([1.0, -2.0, 3.0])
    assert bench.check_output(good, truth, torch.float32, bound)["correct"]
    cases = {
        "outside the error bound": torch.tensor([1.0, -2.0, 3.1]),
        "shape": torch.tensor([1.0, -2.0]),
        "dtype": good.double(),
        "NaN": torch.tensor([1.0, float("nan"), 3.0]),
        "not a tensor": [1.0, -2.0, 3.0],
    }
    for reason, out in cases.items():
        verdict = bench.check_output(out, truth, torch.float32, bound)
        assert not verdict["correct"], reason
        assert reason in verdict["reason"]


def drops_last_column(x, residual):
    return torch.relu(x + residual)[:, :-1]


def zeroes_its_input(x, residual):
    out = torch.relu(x + residual)
    x.zero_()  # right answer, but the caller's tensor is destroyed
    return out


@pytest.mark.parametrize(
    "launcher, reason",
    [
        (drops_last_column, "shape"),
        (zeroes_its_input, "wrote into its inputs"),
    ],
    ids=["wrong-shape", "writes-input"],
)
def test_broken_launcher_is_caught(monkeypatch, launcher, reason):
    monkeypatch.setattr(torch, "compile", lambda fn, **kw: fn)  # keep it fast
    # Library baselines that are off: still timed (they are what the kernel
    # is compared against), but flagged; the broken kernel is never timed.
    calls = []

    def wrong_after_three_calls(x, residual):
        calls.append(1)
        return torch.relu(x + residual) * (1 if len(calls) <= 3 else 0.5)

    spec = dataclasses.replace(
        module.DESCRIPTOR,
        launcher=launcher,
        baselines={
            "off_by_one": lambda x, r: torch.relu(x + r) + 1,
            "drifts": wrong_after_three_calls,
        },
    )
    settings = {"rounds": 3, "repeats_per_round": 1, "warmup_ms": 0.0, "flush_bytes": 0}
    ceilings = {
        "copy": {"bandwidth_bytes_per_s": 1e9},
        "matmul": {"flop_rate_per_s": 1e9},
    }
    rows = bench.run_shape(
        spec, {"rows": 3, "cols": 5}, "cpu", 1, ceilings, None, settings
    )
    by_provider = {r["provider"]: r for r in rows}
    custom = by_provider["triton"]
    assert custom["status"] == bench.STATUS_INCORRECT
    assert reason in custom["reason"]
    assert not custom["timed"]
    assert custom["launches"] == []  # a torch function launches no Triton kernel
    assert by_provider["eager"]["status"] == "ok" and by_provider["eager"]["timed"]
    assert by_provider["eager"]["flags"] == []
    off = by_provider["off_by_one"]
    assert off["status"] == "ok" and off["timed"] and not off["correct"]
    assert off["flags"][0].startswith("baseline outside the error bound")
    drifts = by_provider["drifts"]  # right at first, wrong in the timed loop
    assert drifts["correct"] and not drifts["correct_after_timing"]
    assert drifts["flags"][0].startswith("baseline outside the error bound after")


def test_a_launch_that_differs_from_the_descriptor_is_not_published(monkeypatch):
    monkeypatch.setattr(torch, "compile", lambda fn, **kw: fn)  # keep it fast
    declared = module.DESCRIPTOR.configure

    def claims_a_bigger_block(dtype, rows, cols):
        (launch,) = declared(dtype, rows, cols)
        return [dataclasses.replace(launch, constexprs={"BLOCK_SIZE": 2048})]

    spec = dataclasses.replace(module.DESCRIPTOR, configure=claims_a_bigger_block)
    settings = {"rounds": 3, "repeats_per_round": 1, "warmup_ms": 0.0, "flush_bytes": 0}
    ceilings = {
        "copy": {"bandwidth_bytes_per_s": 1e9},
        "matmul": {"flop_rate_per_s": 1e9},
    }
    rows = bench.run_shape(
        spec, {"rows": 3, "cols": 5}, "cpu", 1, ceilings, None, settings
    )
    custom = {r["provider"]: r for r in rows}["triton"]
    assert custom["status"] == bench.STATUS_ERROR and not custom["timed"]
    assert "'BLOCK_SIZE': 1024" in custom["error"]
    assert "'BLOCK_SIZE': 2048" in custom["error"]


@pytest.mark.parametrize("name", sorted(discover()))
def test_each_descriptor_gives_the_runner_what_it_needs(name):
    desc = discover()[name]
    assert callable(desc.launcher) and callable(desc.reference)
    for profile in ("tiny", "quick", "full"):
        shapes = desc.shapes_for(profile, "cuda")
        assert shapes, f"{name} has no {profile} shapes"
        for shape in shapes:
            assert desc.bytes_moved(shape, 2) > 0 and desc.flops(shape) >= 0
    # Quick shapes are HBM-sized on an H200 (L2 about 60 MB): >= 4x L2.
    (quick,) = desc.shapes_for("quick", "cuda")
    itemsize = getattr(torch, desc.dtype_cuda).itemsize
    moved = desc.bytes_moved(quick, itemsize)
    assert moved >= 4 * 60 * 2**20 or desc.metric == "flops"


PAGE = ROOT / "docs" / "reference" / "benchmarks.md"


def test_benchmarks_page_embeds_every_registered_kernel():
    # The page lists the catalog, and the catalog every descriptor.
    assert "bench_pages.py:every_kernel_results()" in PAGE.read_text()
    text = bench_pages.every_kernel_results()
    for name in discover():
        assert f"{{#{name.replace('_', '-')}}}" in text


def test_the_runner_never_imports_the_site():
    code = (
        "import sys, scripts.bench.runner, scripts.bench.__main__; "
        "assert not [m for m in sys.modules if m.startswith('scripts.site')]"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120)


def test_a_kill_mid_run_leaves_a_finished_partial_file_the_site_shows(
    tmp_path, monkeypatch
):
    # The device run stops an overrunning benchmark with a signal; the runner
    # turns SIGTERM (and SIGINT) into a finished file marked interrupted,
    # holding every row measured before it, which the build shows as partial.
    real, calls = bench.run_shape, []

    def killed_during_the_second_shape(*args, **kwargs):
        calls.append(args[0].name)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler raises here
        return real(*args, **kwargs)

    monkeypatch.setattr(bench, "run_shape", killed_during_the_second_shape)
    monkeypatch.setattr(bench.torch, "compile", lambda fn, **kw: fn)  # no compile
    args = ["reduction", "residual_add_relu", "--device", "cpu", "--profile", "tiny"]
    code = cli.main([*args, "--out", str(tmp_path), "--no-progress", "--seed", "5"])
    assert code == bench.EXIT_INTERRUPTED
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # put back
    (path,) = tmp_path.glob("*.json")
    result = benchmarks.load_result(path)  # the build's own loader accepts it
    data = result.data
    assert data["run_status"] == "interrupted"
    assert data["identity"]["finished_utc"] is not None
    assert {r["kernel"] for r in data["rows"]} == {calls[0]}  # the finished shape
    shown = bench_pages.kernel_results(calls[0], results_dir=tmp_path, root=ROOT)
    assert "run interrupted (partial)" in shown


def test_goal_shapes_come_first_with_the_kernels_taking_turns():
    present = discover()
    jobs = bench.goal_shapes_first(present, "full", "cuda", 60 * 2**20)
    first = [desc.name for desc, _ in jobs[: len(present)]]
    assert sorted(first) == sorted(present)  # every kernel's first goal shape
    matmul = [desc.shape_text(s) for desc, s in jobs if desc.name == "matmul"]
    assert matmul.index("8192×8192×8192") < matmul.index("1024×1024×1024")
