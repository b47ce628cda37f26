"""scripts/practice/hints.py: each condition seen only where it holds, and
the checks no wrong attempt in practice/ shows failing on a known-bad input
(inputs changed, bits that differ between two calls, whole rows unwritten)."""

import torch

from scripts.practice import hints
from scripts.practice.exercises import BY_NAME
from scripts.practice.grader import GUARD, SENTINEL, find_failure
from scripts.practice.hints import Failure, seen

COPY = BY_NAME["strided-copy-2d"]


def test_whole_rows_unwritten_are_named_as_rows():
    out = torch.zeros(4, 6)
    out[2:].view(torch.uint8).fill_(SENTINEL)
    conditions = seen(COPY, COPY.cases[0], Failure("unwritten", "", out=out), {}, {})
    assert "rows_unwritten" in conditions and "columns_unwritten" not in conditions


def test_a_few_ulps_off_is_precision_and_more_is_not():
    truth = torch.linspace(1, 2, 50, dtype=torch.float64)
    near = truth.to(torch.float32)
    near[::3] = torch.nextafter(near[::3], torch.tensor(9.0))
    assert hints._within_ulps(near, truth)
    assert not hints._within_ulps(near * 1.001, truth)


def test_the_stride_hint_needs_the_contiguous_cases_to_pass():
    view = COPY.cases[1]  # transposed
    failure = Failure("values", "", out=torch.zeros(3), truth=torch.ones(3))
    passed = {c.name: True for c in COPY.cases} | {view.name: False}
    assert "stride" in seen(COPY, view, failure, passed, {})
    passed[COPY.cases[0].name] = False  # a contiguous case failed too
    assert "stride" not in seen(COPY, view, failure, passed, {})


def returned(out, again=None, **inputs):
    guard = torch.full((2 * GUARD * out.element_size(),), SENTINEL, dtype=torch.uint8)
    got = {"status": "ok", "out": out, "out_guard": guard, "stored": True}
    got |= {"foreign": "", "dots": [], "atomics": [], "read_past": []}
    return got | {"again": again} | {f"in:{n}": t for n, t in inputs.items()}


def test_changed_inputs_and_changing_bits_are_caught():
    case = BY_NAME["reduce-sum-deterministic"].cases[1]
    x = torch.randn(case.inputs[0].shape)
    total = x.to(torch.float64).sum().reshape(1).to(torch.float32)
    exercise = BY_NAME["reduce-sum-deterministic"]
    ok = returned(total, again=total.clone(), x=x.clone())
    assert find_failure(exercise, case, {"x": x}, ok) is None
    changed = x.clone()
    changed[3] += 1
    bad = find_failure(exercise, case, {"x": x}, returned(total, total, x=changed))
    assert bad.kind == "mutated"
    other = total + 1e-3
    bad = find_failure(exercise, case, {"x": x}, returned(total, other, x=x.clone()))
    assert bad.kind == "nondeterministic"


def test_the_padding_hint_needs_the_failing_rows_to_be_the_padded_ones():
    softmax = BY_NAME["row-softmax"]
    by_name = {c.name: c for c in softmax.cases}
    failure = Failure("values", "", out=torch.zeros(3), truth=torch.ones(3))
    padded = by_name["7x100 (not a power of two)"]
    passed = {c.name: True for c in softmax.cases} | {padded.name: False}
    assert (
        hints.hint_for(softmax, seen(softmax, padded, failure, passed, {}))[0]
        == "ragged"
    )
    # Three rows of 64: no lane is padded, so a failure there is not padding.
    large = by_name["large values 3x64"]
    passed = {c.name: True for c in softmax.cases} | {large.name: False}
    assert "ragged" not in seen(softmax, large, failure, passed, {})
    # Every case failing: the padded rows are not singled out.
    passed = {c.name: False for c in softmax.cases}
    assert "ragged" not in seen(softmax, padded, failure, passed, {})
