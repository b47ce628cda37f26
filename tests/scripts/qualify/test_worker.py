"""The evaluator's child process (scripts/qualify/worker.py), tested
directly in this process: grid checks, launch hooks, what a call records.
test_evaluator.py runs it as a child through the evaluator."""

import pytest
import torch
import triton
import triton.language as tl

import kernels.residual_add_relu as add
from kernels.launches import GRID_LIMITS, grid_violation, launch_grid
from scripts.qualify import evaluator, worker


def test_grid_limits_are_cudas():
    assert GRID_LIMITS == (2**31 - 1, 65535, 65535)
    assert grid_violation((2**31 - 1, 65535, 65535)) is None
    assert "axis 1" in grid_violation((1, 65536, 1))
    assert "axis 0" in grid_violation((2**31, 1, 1))
    # One copy: the worker checks launches with the kernels' own function.
    assert worker.grid_violation is grid_violation
    assert evaluator.contract()["grid_limits"] == list(GRID_LIMITS)


@pytest.fixture
def hooked(monkeypatch):
    """Launch hooks installed for one test only, on a log that counts
    kernels/residual_add_relu.py as the candidate's own file."""
    from triton.runtime import interpreter
    from triton.runtime.jit import JITFunction

    # Setting each hooked attribute to itself makes monkeypatch restore it.
    for cls in (JITFunction, interpreter.InterpretedFunction):
        monkeypatch.setattr(cls, "run", cls.run)
    builder = interpreter.interpreter_builder
    monkeypatch.setattr(builder, "set_grid_dim", builder.set_grid_dim)
    log = worker.LaunchLog(add.__file__)
    worker.install_launch_hooks(log)
    return log


@triton.jit
def _store_ones(out_ptr):
    tl.store(out_ptr + tl.program_id(1), 1.0)


def test_hooks_record_each_launch_with_its_grid(hooked, device):
    if device != "cpu":
        pytest.skip("the interpreter reports the grid; a GPU run is tested there")
    x = torch.full((5,), -1.0)
    residual = torch.full((5,), 3.0)
    hooked.begin_call(plan_only=False)
    out = add.residual_add_relu(x, residual)
    assert out.tolist() == [2.0] * 5
    [record] = hooked.records
    assert record["kernel"] == "residual_add_relu_v1_kernel"
    assert record["own"] is True
    assert record["grid"] == [1, 1, 1]
    assert record["violation"] is None and record["programs_run"] is True


def test_plan_only_launch_records_the_grid_and_runs_no_program(hooked, device):
    if device != "cpu":
        pytest.skip("launch plans are an interpreter feature")
    out = torch.full((1, 3), 7.0)
    hooked.begin_call(plan_only=True)
    _store_ones[(1, 3, 1)](out)
    assert out.tolist() == [[7.0, 7.0, 7.0]]  # no program ran
    [record] = hooked.records
    assert record["grid"] == [1, 3, 1] and record["programs_run"] is False
    assert record["own"] is False  # this file is not the candidate's


def test_a_grid_beyond_cudas_limits_fails_the_launch(hooked, device):
    # Known-wrong: 65536 programs on axis 1, one more than CUDA allows.
    if device != "cpu":
        pytest.skip("would launch a real kernel")
    out = torch.zeros(1)
    hooked.begin_call(plan_only=False)
    with pytest.raises(worker.GridLimitExceeded, match="axis 1"):
        _store_ones[(1, 65536, 1)](out)
    assert hooked.records[-1]["violation"] == grid_violation((1, 65536, 1))
    assert out.tolist() == [0.0]


def test_grid_from_launch_evaluates_a_callable_grid():
    kernel = add.residual_add_relu_v1_kernel
    args = (None, None, None, 5000)
    grid = launch_grid(
        kernel, lambda meta: (triton.cdiv(meta["n_elements"], 1024),), args, {}
    )
    assert grid == (5, 1, 1)
    assert launch_grid(kernel, (3, 2), args, {}) == (3, 2, 1)
    # A grid that cannot be worked out is unknown, not an error.
    assert launch_grid(kernel, lambda meta: 1 / 0, args, {}) is None


def test_storage_ranges_overlap_for_views_of_one_buffer():
    base = torch.zeros(8)
    first, second, other = base[:4], base[3:], torch.zeros(8)
    assert worker.overlaps(worker.storage_range(first), worker.storage_range(second))
    assert not worker.overlaps(worker.storage_range(base), worker.storage_range(other))
    assert worker.storage_range(torch.empty(4, device="meta")) is None
    assert worker.storage_range(torch.empty(0)) is None
    assert not worker.overlaps(None, worker.storage_range(base))


def test_describe_exception_keeps_type_chain_and_message():
    try:
        raise KeyError("x")
    except KeyError as exc:
        described = worker.describe_exception(exc)
    assert described["type"] == "KeyError"
    assert described["mro"][:3] == ["KeyError", "LookupError", "Exception"]
    assert described["message"] == "'x'"


def test_dirty_freed_memory_accepts_nothing_to_dirty():
    worker.dirty_freed_memory(0, "cpu")
    worker.dirty_freed_memory(64, "cpu", copies=1)


def test_a_call_records_output_values_and_aliases():
    # Known-wrong candidate: returns its input, so the output aliases x.
    log = worker.LaunchLog(add.__file__)
    runner = worker.CaseRunner(lambda x, residual: x, "cpu", log)
    x, residual = torch.ones(4), torch.ones(4)
    call = {"mode": "values", "out_nbytes": 16}
    record, copy, live = runner.run_call(call, [x, residual], [x, residual], "c 1")
    assert record["raised"] is None and record["launches"] == []
    assert record["output"]["aliases"] == ["x"]
    assert copy.tolist() == [1.0] * 4 and live is x
    # A second call whose output is the first one's memory is caught too.
    again, _, _ = runner.run_call(call, [x, torch.ones(4)], [None, None], "c 2")
    assert again["output"]["aliases"] == ["x", "the output of c 1"]


def test_a_call_that_raises_is_recorded_not_propagated():
    def candidate(x, residual):
        raise SystemExit(4)

    runner = worker.CaseRunner(candidate, "cpu", worker.LaunchLog(add.__file__))
    call = {"mode": "errors", "out_nbytes": 0}
    record, copy, _ = runner.run_call(call, [torch.ones(1), torch.ones(1)], [], "c")
    assert record["raised"]["type"] == "SystemExit"
    assert record["output"] is None and copy is None


def test_a_write_undone_before_returning_is_recorded():
    # Known-wrong candidate: scribbles on x in place, then restores it.
    def candidate(x, residual):
        x.add_(1.0)
        x.sub_(1.0)
        return torch.relu(x + residual)

    runner = worker.CaseRunner(candidate, "cpu", worker.LaunchLog(add.__file__))
    x, residual = torch.ones(4), torch.ones(4)
    call = {"mode": "values", "out_nbytes": 16}
    record, _, _ = runner.run_call(call, [x, residual], [x, residual], "c 1")
    assert record["inputs_written"] == ["x"]


def test_inputs_can_be_fresh_tensors_one_tensor_or_views_of_one_storage():
    """The child makes what the cases of issue 36 ask for, and reports the
    result's storage size (a padded result is judged on it)."""
    from scripts.qualify import cases

    by_name = {case.name: case for case in cases.cases()}
    runner = worker.CaseRunner(None, "cpu", worker.LaunchLog(add.__file__))
    [fresh, _] = by_name["widened-bfloat16"].calls("cpu", 2**18)
    tensor, base = runner.materialize(fresh.x)
    assert tensor._base is None and base.untyped_storage() is not None
    same, views = by_name["aliased-inputs"].calls("cpu", 2**18)
    x, x_base = runner.materialize(views.x)
    r, _ = runner.materialize(views.residual, x_base)
    assert r.data_ptr() - x.data_ptr() == 5 * 4 and r.untyped_storage() is not None
    assert same.residual["same"]
    padded = torch.zeros(8)[:3]
    info = runner.describe_output(padded, [x, r], "c 1", "plan")
    assert info["storage_nbytes"] == 32 and info["storage_offset"] == 0
