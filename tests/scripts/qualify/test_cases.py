"""The case list of the qualification (scripts/qualify/cases.py)."""

import math

import pytest
import torch

from kernels.residual_add_relu import DESCRIPTOR
from scripts.qualify import cases, task
from scripts.qualify.task import of_family

TASK = of_family("elementwise-binary")


def test_case_counts_are_those_the_issue_asks_for():
    assert len(cases.kernel_cases()) == 39
    assert len(cases.unsupported_cases()) == 5
    names = [case.name for case in cases.cases()]
    assert len(names) == len(set(names))


def test_cases_cover_the_required_sizes_and_dtypes():
    sizes = set()
    dtypes = set()
    for case in cases.kernel_cases():
        for call in case.calls("cpu", cases.INTERPRETER_MAX_NUMEL):
            if call.args and call.args[0].get("kind") == "strided":
                sizes.add(math.prod(call.args[0]["size"]))
                dtypes.add(call.args[0]["base"].dtype)
    assert {1, 256, 257} <= sizes
    assert len(dtypes) == 3
    assert any(n > 65535 for n in sizes)
    shapes, source = task.bench_shapes(TASK)
    assert source == "kernels/residual_add_relu.py" and len(shapes) == 3


def test_bench_shapes_and_dtype_come_from_the_descriptor():
    shapes, _ = task.bench_shapes(TASK)
    full = [(s["rows"], s["cols"]) for s in DESCRIPTOR.shapes["full"]]
    quick = DESCRIPTOR.shapes["quick"][0]
    assert shapes[0] == min(full, key=math.prod)
    assert shapes[1] == (quick["rows"], quick["cols"])
    assert shapes[2] in full and any(d & (d - 1) for d in shapes[2])
    assert str(task.bench_dtype("cpu", TASK)) == f"torch.{DESCRIPTOR.dtype_cpu}"
    assert str(task.bench_dtype("cuda", TASK)) == f"torch.{DESCRIPTOR.dtype_cuda}"


def test_only_cases_too_large_for_the_interpreter_are_launch_only():
    limit = cases.INTERPRETER_MAX_NUMEL
    launch_only = []
    for case in cases.kernel_cases():
        calls = case.calls("cpu", limit)
        if case.launch_only("cpu", limit):
            launch_only.append(case.name)
            launch_only.sort()
            assert all(c.mode == "plan" for c in calls), case.name
            assert max(math.prod(c.args[0]["size"]) for c in calls) > limit
        else:
            assert all(c.mode == "values" for c in calls), case.name
            sizes = [math.prod(c.args[0]["size"]) for c in calls if c.args]
            assert max(sizes, default=0) <= limit, case.name
        assert case.mode_on("cuda") == "values", case.name  # never built here
    assert launch_only == [
        "bench-32768x4096",
        "bench-50021x4099",
        "programs-past-65535",
        "size-bands-large",
    ]


def test_cases_issue_13_asked_for():
    """5-d, stride 0 in an inner dimension, a size between 2**20 and 2**23,
    tiny magnitudes, a refill that changes only some elements, and the
    unsupported inputs a kernel must refuse cleanly."""
    by_name = {case.name: case for case in cases.cases()}
    [five] = by_name["five-d"].calls("cpu", cases.INTERPRETER_MAX_NUMEL)
    assert (
        len(five.args[0]["size"]) == 5 and five.args[0]["stride"][-1] != 1
    )  # not row-major
    [inner] = by_name["broadcast-inner"].calls("cpu", cases.INTERPRETER_MAX_NUMEL)
    assert inner.args[1]["stride"][1] == 0 and inner.args[1]["stride"][0] > 0
    assert 2**20 < by_name["mid-size"].numel < 2**23
    [tiny] = by_name["tiny-values"].calls("cpu", cases.INTERPRETER_MAX_NUMEL)
    assert (
        tiny.args[0]["base"].abs().min() < 1e-25
        and tiny.args[0]["base"].abs().max() < 0.01
    )
    first, second = by_name["refill-some"].calls("cpu", cases.INTERPRETER_MAX_NUMEL)
    differ = (second.refill[0] != first.args[0]["base"]).sum()
    assert 0 < differ < 100 and second.refill[0][0] == first.args[0]["base"][0]
    notes = {
        call.note
        for case in cases.unsupported_cases()
        for call in case.calls("cpu", cases.INTERPRETER_MAX_NUMEL)
    }
    assert {"int64", "uint8", "complex64", "float8_e4m3fn"} <= notes
    assert {"(2, 3, 4) + (3, 2, 4)", "(4,) + (1,)", "residual=3"} <= notes


def test_the_inputs_text_is_described_from_the_built_calls():
    by_name = {case.name: case for case in cases.cases()}
    assert by_name["size-257"].inputs == (
        "(257,) float32: all positive; (257,) float32, both fresh (not views): "
        "mixed signs"
    )
    assert "both column-major" in by_name["transposed"].inputs
    assert "residual stride 0 in dimension 1" in by_name["broadcast-inner"].inputs
    # the count of changed elements is the builder's, not a retyped one
    [_, second] = by_name["refill-some"].calls("cpu", cases.INTERPRETER_MAX_NUMEL)
    assert second.note in by_name["refill-some"].inputs
    assert by_name["device-mismatch"].kind == "unsupported"


def sizes_of(case):
    return [math.prod(c.args[0]["size"]) for c in case.calls("cpu", 2**18) if c.args]


def test_every_power_of_two_band_up_to_the_largest_case_has_a_size():
    """A size-class dispatch wrong in any band is reached (issue 36)."""
    every = {n for case in cases.kernel_cases() for n in cases.case_sizes(case)}
    bands = {n.bit_length() for n in every if n}
    assert bands == set(range(1, max(every).bit_length() + 1))
    by_name = {case.name: case for case in cases.cases()}
    # the small bands' values are checked on every CPU run, the corpus's too
    assert max(sizes_of(by_name["size-bands"])) <= cases.BAND_VALUES_MAX
    assert by_name["size-bands-large"].mode_on("cpu") == "launch only"


def test_bands_missing_fills_only_the_empty_bands():
    from scripts.qualify.builders import bands_missing

    assert bands_missing({1, 3, 257}, 300) == [
        4 + 2 + 1,
        8 + 2 + 1,
        16 + 4 + 1,
        32 + 4 + 1,
        64 + 8 + 1,
        128 + 8 + 1,
    ]


def test_zero_strides_in_x_and_in_the_last_dimension():
    by_name = {case.name: case for case in cases.cases()}
    row, scalar = by_name["broadcast-x"].calls("cpu", 2**18)
    assert row.args[0]["stride"] == [0, 1] and scalar.args[0]["stride"] == [0, 0]
    [column] = by_name["broadcast-column"].calls("cpu", 2**18)
    assert column.args[1]["stride"][-1] == 0 and column.args[1]["stride"][0] == 1


def test_aliased_inputs_share_one_storage():
    by_name = {case.name: case for case in cases.cases()}
    same, views = by_name["aliased-inputs"].calls("cpu", 2**18)
    assert same.args[1]["same"] and same.args[1]["storage"] == 0
    assert views.args[1]["base"] is views.args[0]["base"]
    assert views.args[1]["offset"] - views.args[0]["offset"] < views.args[0]["size"][0]


def test_nan_payloads_and_widened_bfloat16_inputs():
    by_name = {case.name: case for case in cases.cases()}
    f32, bf16 = by_name["nan-payloads"].calls("cpu", 2**18)
    bits = f32.args[0]["base"].view(torch.int32)
    nan = f32.args[0]["base"].isnan()
    assert {0x7F800001, 0x7FC00001} <= set(bits[nan].tolist())  # sNaN, payload
    assert (bits[nan] < 0).any()  # negative NaNs
    assert (
        bf16.args[0]["base"].dtype == torch.bfloat16
        and bf16.args[0]["base"].isnan().any()
    )
    for call in by_name["widened-bfloat16"].calls("cpu", 2**18):
        base = call.args[0]["base"]
        assert base.dtype == torch.float32 and call.args[0]["fresh"]
        assert not (base.view(torch.int32) & 0xFFFF).any()


# --------------------------------------------------------------------------
# Each new case catches its broken candidate and passes the course's kernel
# (in this process, under the interpreter; the corpus shows it sandboxed)
# --------------------------------------------------------------------------

BROKEN = "tests/scripts/qualify/candidates/broken"


def _load(path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(path.replace("/", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.residual_add_relu


def _materialize(call):
    """The inputs as the child makes them: views, fresh tensors, one storage."""
    made = []
    for spec in call.args:
        if spec.get("same"):
            made.append(made[0])
            continue
        if spec.get("fresh"):
            fresh = torch.empty(spec["size"], dtype=spec["base"].dtype)
            made.append(fresh.copy_(spec["base"].reshape(spec["size"])))
            continue
        shared = spec.get("storage") == 0
        base = made[0]._base if shared else spec["base"].clone()
        made.append(base.as_strided(spec["size"], spec["stride"], spec["offset"]))
    return made


def _wrong_calls(function, case_name):
    from snippets.kernel_correctness_contracts.contract import (
        nan_mismatch,
        value_mismatch,
    )

    case = {c.name: c for c in cases.cases()}[case_name]
    wrong = 0
    for call in case.calls("cpu", 2**18):
        x, residual = _materialize(call)
        dirt = torch.full(x.shape, -97.0, dtype=x.dtype)  # freed memory is not
        del dirt  # zero, nor a copy of the answer: the output lands on this
        out = function(x, residual)
        expected = torch.relu(x + residual)
        exact = 0 if expected.dtype != torch.bfloat16 else 1  # unpatched here
        wrong += bool(
            value_mismatch(out, expected, exact) or nan_mismatch(out, expected)
        )
    return wrong


NEW_CASES = [
    ("bias_is_residual", "broadcast-x", "broadcast-row"),
    ("broadcast_as_row", "broadcast-column", "broadcast-row"),
    ("same_storage_loaded_once", "aliased-inputs", "size-257"),
    ("nan_by_bit_pattern", "nan-payloads", "nan-inf-float32"),
    ("widened_bf16_fast_path", "widened-bfloat16", "size-257"),
    ("recognises_views", "widened-bfloat16", "transposed"),
]


@pytest.mark.parametrize(
    ("candidate", "new", "old"), NEW_CASES, ids=[c for c, _, _ in NEW_CASES]
)
def test_the_new_case_catches_what_an_old_one_passes(candidate, new, old):
    from kernels.residual_add_relu import residual_add_relu

    broken = _load(f"{BROKEN}/{candidate}.py")
    assert _wrong_calls(broken, new) > 0
    assert _wrong_calls(broken, old) == 0
    assert _wrong_calls(residual_add_relu, new) == 0


def test_the_size_bands_reach_a_size_class_no_other_case_did():
    """band_floor_grid.py is wrong only from 8192 to 16383 elements: only
    the size-bands case has a size there (the corpus runs it sandboxed)."""
    from kernels.residual_add_relu import residual_add_relu

    others = [c for c in cases.kernel_cases() if not c.name.startswith("size-bands")]
    every = {n for case in others for n in cases.case_sizes(case)}
    assert not any(8192 <= n < 16384 for n in every)
    by_name = {case.name: case for case in cases.cases()}
    [n] = [n for n in sizes_of(by_name["size-bands"]) if 8192 <= n < 16384]
    broken = _load(f"{BROKEN}/band_floor_grid.py")
    x, r = torch.rand(n) + 0.5, torch.rand(n) + 0.5
    dirt = torch.full((n,), -97.0)
    del dirt
    assert not torch.equal(broken(x, r), x + r)
    assert torch.equal(residual_add_relu(x, r), x + r)
