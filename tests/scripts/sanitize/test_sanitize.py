import json
import subprocess

import pytest

import scripts.sanitize as sanitize
from evidence import read
from kernels.descriptor import discover
from snippets.compute_sanitizer import findings

MEMCHECK_OUT = """========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at oob_read_kernel+0x1a0
=========     Address 0x7f0000000fa0 is out of bounds
========= ERROR SUMMARY: 24 errors
"""
CLEAN_OUT = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n"
RACE_OUT = (
    "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"
    "========= ERROR SUMMARY: 0 errors\n"
)


def test_default_plan_is_the_stated_rows_and_three_kernels():
    runs = sanitize.plan()
    planted = [r for r in runs if r.kind == "planted"]
    assert len(planted) == len(findings.EXPECTED)
    kernels = {r.target for r in runs if r.kind == "kernel"}
    assert kernels == {f"kernel:{k}" for k in sanitize.DEFAULT_KERNELS}
    no_cache = [r for r in runs if not r.caching]
    assert all(r.env == {findings.CACHING_ENV: "1"} for r in no_cache)
    assert all(r.tool in sanitize.ALLOCATOR_SENSITIVE for r in no_cache)


def test_full_plan_and_bad_names():
    runs = sanitize.plan(kernels=None, stated_only=False)
    per_case = len(findings.TOOLS) + len(sanitize.ALLOCATOR_SENSITIVE)
    kernels = sanitize.kernel_names()
    # Packages too (matmul/, transpose/): the same kernels discover() imports.
    assert kernels == sorted(discover())
    assert "transpose" in kernels and "descriptor" not in kernels
    assert len(runs) == len(findings.CASES) * per_case + len(kernels) * 4
    with pytest.raises(ValueError, match="tool"):
        sanitize.plan(tools=("nope",))
    with pytest.raises(ValueError, match="case"):
        sanitize.plan(cases=("nope",))


def test_argv_runs_the_target_module_under_the_tool():
    run = sanitize.Run("planted:clean", "racecheck", True)
    argv = run.argv("python")
    assert argv[:3] == ["compute-sanitizer", "--tool", "racecheck"]
    assert argv[-3:] == ["-m", "scripts.sanitize.target", "planted:clean"]


def test_parse_errors():
    assert sanitize.parse_errors(MEMCHECK_OUT) == 24
    assert sanitize.parse_errors(CLEAN_OUT) == 0
    assert sanitize.parse_errors(RACE_OUT) == 0
    assert sanitize.parse_errors("Segmentation fault") is None


def test_judge_each_branch():
    oob = sanitize.Run("planted:oob-read", "memcheck", False)
    assert sanitize.judge(oob, 24, MEMCHECK_OUT)[2] is True
    assert sanitize.judge(oob, 0, CLEAN_OUT)[2] is False
    assert sanitize.judge(oob, 3, "ERROR SUMMARY: 3 errors")[2] is False  # wrong kind
    hidden = sanitize.Run("planted:oob-read", "memcheck", True)
    assert sanitize.judge(hidden, 0, CLEAN_OUT) == ("clean", "", True)
    unstated = sanitize.Run("planted:clean", "synccheck", False)
    assert sanitize.judge(unstated, 0, CLEAN_OUT)[2] is None
    kernel = sanitize.Run("kernel:transpose", "racecheck", True)
    assert sanitize.judge(kernel, 0, RACE_OUT)[2] is True
    assert sanitize.judge(kernel, None, "")[2] is None


def test_dry_run_writes_a_valid_file_without_cuda(tmp_path):
    path = sanitize.run_all(tmp_path, dry_run=True, git={"commit": "abc"})
    assert path == tmp_path / "sanitizer.dry-run.json"
    data = read("sanitizer", path).data
    assert data["mode"] == "dry-run" and data["device"] is None
    assert len(data["runs"]) == data["planned_runs"] == len(sanitize.plan())
    assert data["complete"] is True
    # The stub went through the same start, parse and judge path.
    assert {r["status"] for r in data["runs"]} == {"stub"}
    assert {r["errors"] for r in data["runs"]} == {0}
    assert {r["matches"] for r in data["runs"]} == {None}
    assert "undecided" in sanitize.summary(path)


def test_the_file_is_rewritten_after_every_run(tmp_path, monkeypatch):
    # A step killed at its limit keeps the runs that finished.
    real = sanitize.execute
    calls = []

    def second_run_is_killed(run, timeout_s, dry_run):
        calls.append(run)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(run, timeout_s, dry_run)

    monkeypatch.setattr(sanitize, "execute", second_run_is_killed)
    with pytest.raises(KeyboardInterrupt):
        sanitize.run_all(tmp_path, dry_run=True, runs=sanitize.device_plan(), git={})
    data = read("sanitizer", tmp_path / "sanitizer.dry-run.json").data
    assert len(data["runs"]) == 1 and data["complete"] is False
    assert data["planned_runs"] == len(sanitize.device_plan())


def test_the_device_plan_carries_the_lesson_in_a_few_runs():
    runs = sanitize.device_plan()
    assert 3 <= len(runs) <= 5
    first = runs[0]
    assert (first.target, first.tool, first.caching) == (
        "planted:oob-read",
        "memcheck",
        False,
    )
    assert any(r.env == sanitize.ASYNC_ALLOCATOR_ENV for r in runs)  # audit F25
    assert any(r.target == "planted:clean" for r in runs)
    # Host API errors never count as findings.
    argv = first.argv()
    assert argv[argv.index("--report-api-errors") + 1] == "no"


def test_a_real_run_records_the_tools_output(tmp_path, monkeypatch):
    def fake_run(argv, **kw):
        assert kw["env"].get(findings.CACHING_ENV) == "1"
        return subprocess.CompletedProcess(argv, 0, MEMCHECK_OUT, "")

    monkeypatch.setattr(sanitize.subprocess, "run", fake_run)
    monkeypatch.setattr(sanitize.shutil, "which", lambda name: "/bin/true")
    monkeypatch.setattr(sanitize, "sanitizer_version", lambda: "Version 2025.1")
    monkeypatch.setattr(sanitize, "device_name", lambda: "NVIDIA H200")
    runs = [
        sanitize.Run("planted:oob-read", "memcheck", False, {findings.CACHING_ENV: "1"})
    ]
    path = sanitize.run_all(tmp_path, dry_run=False, runs=runs, git={})
    (run,) = json.loads(path.read_text())["runs"]
    assert run["status"] == "ran" and run["errors"] == 24 and run["matches"] is True
    assert "as expected 1" in sanitize.summary(path)


def test_timeouts_and_missing_tool(tmp_path, monkeypatch):
    def slow(argv, **kw):
        raise subprocess.TimeoutExpired(argv, 1, output="partial")

    monkeypatch.setattr(sanitize.subprocess, "run", slow)
    entry = sanitize.execute(
        sanitize.Run("kernel:transpose", "memcheck", True), 1, False
    )
    assert entry["status"] == "timeout" and entry["matches"] is None
    monkeypatch.setattr(sanitize.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="dry-run"):
        sanitize.run_all(tmp_path, dry_run=False, runs=[], git={})
