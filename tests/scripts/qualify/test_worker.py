"""The evaluator's child process (scripts/qualify/worker.py), tested
directly in this process: grid checks, what a call records (the launch
hooks are tested in test_launch_log.py).
test_evaluator.py runs it as a child through the evaluator."""

import torch

import kernels.residual_add_relu as add
from kernels.launches import GRID_LIMITS, grid_violation
from scripts.qualify import contract, launch_log, worker

NAMES = ("x", "residual")  # the arguments of the task these calls are for


def test_grid_limits_are_cudas():
    assert GRID_LIMITS == (2**31 - 1, 65535, 65535)
    assert grid_violation((2**31 - 1, 65535, 65535)) is None
    assert "axis 1" in grid_violation((1, 65536, 1))
    assert "axis 0" in grid_violation((2**31, 1, 1))
    # One copy: the worker checks launches with the kernels' own function.
    assert launch_log.grid_violation is grid_violation
    assert contract.contract()["grid_limits"] == list(GRID_LIMITS)


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
    runner = worker.CaseRunner(lambda x, residual: x, "cpu", log, names=NAMES)
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

    runner = worker.CaseRunner(
        candidate, "cpu", worker.LaunchLog(add.__file__), names=NAMES
    )
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

    runner = worker.CaseRunner(
        candidate, "cpu", worker.LaunchLog(add.__file__), names=NAMES
    )
    x, residual = torch.ones(4), torch.ones(4)
    call = {"mode": "values", "out_nbytes": 16}
    record, _, _ = runner.run_call(call, [x, residual], [x, residual], "c 1")
    assert record["inputs_written"] == ["x"]


def test_read_only_inputs_keep_their_layout_sharing_and_refills():
    # x and residual are views of one storage, then refilled in place: the
    # child sees the same pointers with the new values, and nothing writes.
    import os

    from scripts.qualify import shared_inputs
    from scripts.qualify.builders import Call, tensor_spec
    from snippets.kernel_correctness_contracts import adversarial as adv

    shared = torch.arange(12.0).reshape(3, 4)
    first = Call("values", (tensor_spec(adv.transposed(shared)),))
    first.args = (first.args[0], first.args[0])
    refill = Call("values", reuse="refill", refill=(shared + 1, shared + 1))
    again = Call("values", reuse="same")
    packer, [specs] = shared_inputs.pack([[first, refill, again]])
    fd = packer.sealed_fd()
    try:
        mapped = shared_inputs.Mapped(fd)
    finally:
        os.close(fd)
    seen = []

    def candidate(x, residual):
        seen.append((x.data_ptr(), x.stride(), x.clone()))
        return torch.relu(x + residual)

    runner = worker.CaseRunner(
        candidate, "cpu", worker.LaunchLog(add.__file__), mapped, NAMES
    )
    case = {
        "name": "c",
        "calls": [
            {"mode": "values", "reuse": r, "out_nbytes": 48}
            for r in (None, "refill", "same")
        ],
    }
    claim, tensors = runner.run_case(0, case, specs)
    assert [c["raised"] for c in claim["calls"]] == [None] * 3
    assert len({ptr for ptr, _, _ in seen}) == 1  # the same buffer each time
    assert seen[0][1] == (1, 3)  # the column-major layout kept
    assert torch.equal(seen[0][2], shared)
    assert torch.equal(seen[1][2], shared + 1)
    assert torch.equal(seen[2][2], seen[1][2])
    assert torch.equal(tensors["c2.out"], torch.relu(2 * (shared + 1)))
    assert runner.read_only(runner.kept["k0.chain0.x"])


def test_inputs_can_be_fresh_tensors_one_tensor_or_views_of_one_storage():
    """The child makes what the cases of issue 36 ask for, and reports the
    result's storage size (a padded result is judged on it)."""
    from scripts.qualify import cases

    by_name = {case.name: case for case in cases.cases()}
    runner = worker.CaseRunner(None, "cpu", worker.LaunchLog(add.__file__), names=NAMES)
    [fresh, _] = by_name["widened-bfloat16"].calls("cpu", 2**18)
    tensor, base = runner.materialize(fresh.args[0])
    assert tensor._base is None and base.untyped_storage() is not None
    same, views = by_name["aliased-inputs"].calls("cpu", 2**18)
    x, x_base = runner.materialize(views.args[0])
    r, _ = runner.materialize(views.args[1], [x_base])
    assert r.data_ptr() - x.data_ptr() == 5 * 4 and r.untyped_storage() is not None
    assert same.args[1]["same"]
    padded = torch.zeros(8)[:3]
    info = runner.describe_output(padded, [x, r], "c 1", "plan")
    assert info["storage_nbytes"] == 32 and info["storage_offset"] == 0
