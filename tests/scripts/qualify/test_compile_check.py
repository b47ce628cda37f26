"""The parent's sm_90a compile check (scripts/qualify/compile_check.py): the
launch's claim and the bounds. The compile process is tested in
test_compile_server.py, and runs in every evaluator test on the CPU."""

import json
import subprocess
import time

import pytest
import torch
import triton
import triton.language as tl

from scripts.qualify import compile_check


@triton.jit
def _copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_a_launch_reports_what_triton_specialises_on():
    x = torch.ones(40, dtype=torch.bfloat16)
    spec = compile_check.launch_specialisation(
        _copy.fn, (x, x[1:], 1), {"BLOCK": 16, "num_warps": 2}
    )
    assert spec["kernel"] == "_copy" and spec["options"] == {"num_warps": 2}
    assert spec["params"] == [
        ["x_ptr", "*bf16", "D"],  # 16-byte aligned
        ["out_ptr", "*bf16", ""],  # one element in: not aligned
        ["n", "constexpr", 1],  # Triton makes 1 a constant
        ["BLOCK", "constexpr", 16],
    ]
    text = json.dumps(spec)
    assert compile_check.parse_specialisation(text) == spec
    other = compile_check.launch_specialisation(_copy.fn, (x, x, 32), {"BLOCK": 16})
    assert compile_check.spec_key(other) != compile_check.spec_key(spec)


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda s: s.update(extra=1), "other keys"),
        (lambda s: s.update(kernel="os.system"), "not an identifier"),
        (lambda s: s["params"].append(["n", "*fp32;rm", "D"]), "unknown type"),
        (lambda s: s["params"].append(["n", "i32", [1, 2]]), "not plain"),
        (lambda s: s.update(options={"debug": 1}), "num_warps"),
        (lambda s: s.update(params=[["a", "i32", ""]] * 65), "short list"),
    ],
    ids=["keys", "kernel", "type", "value", "options", "many"],
)
def test_a_malformed_claim_is_named(change, says):
    spec = compile_check.launch_specialisation(
        _copy.fn, (torch.ones(4),) * 2 + (4,), {"BLOCK": 16}
    )
    change(spec)
    with pytest.raises(compile_check.SpecError, match=says):
        compile_check.parse_specialisation(json.dumps(spec))


def test_past_the_bound_a_run_is_told_so_and_results_are_cached(monkeypatch):
    monkeypatch.setattr(compile_check, "MAX_SPECIALISATIONS", 1)
    monkeypatch.setattr(compile_check.Compiler, "cache", {})
    run = compile_check.RunCompiles(b"source")
    texts = [
        json.dumps(
            compile_check.launch_specialisation(
                _copy.fn, (torch.ones(64),) * 2 + (n,), {"BLOCK": 16}
            )
        )
        for n in (64, 65)
    ]
    first = compile_check.spec_key(compile_check.parse_specialisation(texts[0]))
    compile_check.Compiler.cache[(run.sha, first)] = None  # compiled before
    run.asked.add("another")  # the one this run may compile
    results = run.check(texts)  # nothing to start: cached, or over the bound
    assert results[0] is None
    assert "more than 1 distinct specialisations" in results[1]
    assert "malformed" in run.check(["{}"])[0]


def test_replies_that_arrive_together_are_all_read(tmp_path):
    # Two replies in one write: a buffered readline would leave the second
    # where select() cannot see it, and wait out the deadline.
    compiler = object.__new__(compile_check.Compiler)
    replies = '{"id": 0, "error": null}\\n{"id": 1, "error": "E: no"}\\n'
    compiler.process = subprocess.Popen(
        ["sh", "-c", f"printf '{replies}'; sleep 120"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    compiler.next_id, compiler.pending_bytes = 0, b""
    compiler.root = tmp_path / "compile"
    started = time.monotonic()
    try:
        results = compiler.compile("source.py", [{}, {}], started + 60)
    finally:
        compiler.process.kill()
        compiler.process.wait()
    assert results == [None, "E: no"]
    # Answered as soon as both replies were in, long before the deadline (a
    # margin no busy machine closes: reading two lines takes milliseconds).
    assert time.monotonic() - started < 30


def test_a_compile_past_the_deadline_fails_with_the_reason(tmp_path):
    compiler = object.__new__(compile_check.Compiler)
    compiler.process = subprocess.Popen(
        ["sleep", "5"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    compiler.next_id, compiler.pending_bytes = 0, b""
    compiler.root = tmp_path / "compile"
    [error] = compiler.compile("source.py", [{}], time.monotonic() + 0.2)
    assert "did not finish within" in error
    assert compiler.process.poll() is not None  # stopped, not left running


def test_an_own_launch_without_a_specialisation_fails_and_the_childs_say_is_dropped():
    # Known-wrong claim: the child says its kernel compiled, and reports no
    # specialisation for the parent to compile.
    launch = {"kernel": "k", "own": True, "compiled": True, "compile_error": None}
    claim = {"calls": [{"launches": [{**launch, "specialisation": None}]}]}
    compile_check.RunCompiles(b"source").apply(claim)
    [record] = claim["calls"][0]["launches"]
    assert record["compiled"] is False
    assert "without a record of its specialisation" in record["compile_error"]


def test_compiles_stop_at_the_runs_deadline(monkeypatch, tmp_path):
    """A run that asks for many compiles is held to its own deadline, not
    to the compile check's 120 s: the compile process is stopped there."""
    compiler = object.__new__(compile_check.Compiler)
    compiler.process = subprocess.Popen(
        ["sleep", "30"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    compiler.next_id, compiler.pending_bytes = 0, b""
    compiler.root = tmp_path / "compile"
    monkeypatch.setattr(compile_check.Compiler, "cache", {})
    run = compile_check.RunCompiles(b"source", time.monotonic() + 0.3)
    run.compiler, run.source_at = compiler, "source.py"
    monkeypatch.setattr(run, "start", lambda: run)
    text = json.dumps(
        compile_check.launch_specialisation(
            _copy.fn, (torch.ones(64),) * 2 + (64,), {"BLOCK": 16}
        )
    )
    started = time.monotonic()
    [error] = run.check([text])
    assert "by the run's deadline" in error
    assert time.monotonic() - started < 10, "hung: compiles ran past the run"
