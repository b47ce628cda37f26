"""The launch records of the candidate's process
(scripts/qualify/launch_log.py), tested directly in this process."""

import pytest
import torch
import triton
import triton.language as tl

import kernels.residual_add_relu as add
from kernels.launches import grid_violation, launch_grid
from scripts.qualify import launch_log


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
    log = launch_log.LaunchLog(add.__file__)
    launch_log.install_launch_hooks(log)
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
    with pytest.raises(launch_log.GridLimitExceeded, match="axis 1"):
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
    assert launch_log.overlaps(
        launch_log.storage_range(first), launch_log.storage_range(second)
    )
    assert not launch_log.overlaps(
        launch_log.storage_range(base), launch_log.storage_range(other)
    )
    assert launch_log.storage_range(torch.empty(4, device="meta")) is None
    assert launch_log.storage_range(torch.empty(0)) is None
    assert not launch_log.overlaps(None, launch_log.storage_range(base))
