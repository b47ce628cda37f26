"""The parent's judging (scripts/qualify/judge.py): pure functions of claims
and tensor bytes, each shown failing on a known-bad input."""

import math

import torch

from scripts.qualify import judge
from scripts.qualify.cases import Call
from scripts.qualify.records import RecordError


def test_compare_accepts_equal_and_names_the_first_difference():
    ref = torch.tensor([1.0, 2.0, float("nan")])
    assert judge.compare(ref.clone(), ref, 0) is None
    wrong = torch.tensor([1.0, 2.5, float("nan")])
    assert "first at index (1,)" in judge.compare(wrong, ref, 0)
    lost = torch.tensor([1.0, 2.0, 0.0])
    assert "NaN results lost" in judge.compare(lost, ref, 0)
    assert judge.compare(lost, ref, 0, nan="ignore") is None


def test_compare_by_bits_sees_a_nan_payload_and_sign():
    ref = torch.tensor([float("nan")])
    other = (-ref).clone()  # the same NaN, sign flipped
    assert judge.compare(other, ref, 0) is None  # the mask policy accepts it
    assert "payload or sign" in judge.compare(other, ref, 0, nan="bits")


def test_never_written_reports_ranges_of_the_sentinel():
    out = torch.zeros(1030, dtype=torch.float32)
    dirt = torch.full((4,), 0xC2, dtype=torch.uint8).view(torch.float32)
    out[1024:1027] = dirt
    out[5] = dirt
    assert judge.never_written(out, 0xC2) == (
        "elements 5, 1024..1026 were never written (still the sentinel fill)"
    )
    assert judge.never_written(torch.zeros(8), 0xC2) is None


def test_mutated_counts_changed_elements_bit_for_bit():
    before = torch.tensor([0.0, 1.0, 2.0])
    after = torch.tensor([-0.0, 1.0, 3.0])  # -0.0 == 0.0, but not bit for bit
    assert judge.mutated(before, after) == 2
    assert judge.mutated(before, before.clone()) == 0


def test_overlaps_and_meta_problem():
    assert judge.overlaps((0, 10), (9, 20)) and not judge.overlaps((0, 10), (10, 20))
    assert not judge.overlaps(None, (0, 1))
    assert judge.meta_problem([2, 3], "torch.float32", [2, 3], "torch.float32") is None
    assert "expected (6,)" in judge.meta_problem([2, 3], "f", [6], "f")
    assert "on meta" in judge.meta_problem([1], "f", [1], "f", "meta", "cpu")


def _claim(output=None, raised=None, launches=()):
    return {
        "raised": raised,
        "launches": list(launches),
        "input_device": "cpu",
        "output": output,
        "inputs_written": [],
        "state_changed": [],
        "earlier_changed": [],
        "race": None,
    }


def _launch(**changes):
    record = {
        "kernel": "k",
        "own": True,
        "grid": [1, 1, 1],
        "violation": None,
        "programs_run": True,
        "writes_output": True,
        "tf32_dots": 0,
        "compiled": True,
        "compile_error": None,
    }
    return {**record, **changes}


def _values_call(x, r):
    def spec(t):
        return {
            "kind": "strided",
            "base": t,
            "size": list(t.shape),
            "stride": list(t.stride()),
            "offset": 0,
        }

    return Call("values", (spec(x), spec(r)))


def _judge(out_tensor, launches=None, x=None, r=None, race=None):
    launches = [_launch()] if launches is None else launches
    x = torch.tensor([1.0, -2.0, 3.0]) if x is None else x
    r = torch.tensor([0.5, 0.5, 0.5]) if r is None else r
    call = _values_call(x, r)
    pristine = judge.pristine_for([call])[0]
    out = {
        "plain": True,
        "type": "Tensor",
        "shape": list(out_tensor.shape),
        "dtype": str(out_tensor.dtype),
        "device": "cpu",
        "aliases": [],
        "storage_nbytes": out_tensor.untyped_storage().nbytes(),
        "storage_offset": out_tensor.storage_offset(),
    }
    tensors = {
        "c1.out": out_tensor.contiguous(),
        "c1.x": x.clone(),
        "c1.residual": r.clone(),
    }
    claim = _claim(out, launches=launches) | {"race": race}
    return judge.judge_kernel_call(call, 1, claim, tensors, pristine, None, True)


def test_a_right_answer_passes_every_check():
    failures, evaluated, values = _judge(torch.tensor([1.5, 0.0, 3.5]))
    assert failures == [] and evaluated == 11 and values is not None


def test_a_race_the_child_saw_fails_race_free_and_names_the_programs():
    race = {"kernel": "k", "programs": [[0, 0, 0], [1, 0, 0]],
            "kinds": ["store", "load"], "tensor": "the output",
            "element": 0}  # fmt: skip
    failures, evaluated, _ = _judge(torch.tensor([1.5, 0.0, 3.5]), race=race)
    assert [c for c, _ in failures] == ["race-free"] and evaluated == 12
    assert "program (1, 0, 0) loads element 0 of the output" in failures[0][1]


def test_a_wrong_answer_and_a_missing_launch_are_named():
    failures, _, _ = _judge(torch.tensor([1.5, 0.0, 9.0]), launches=())
    assert [c for c, _ in failures] == ["launches-kernel", "values"]


def test_bytes_that_contradict_the_claims_are_a_record_error():
    call = _values_call(torch.ones(2), torch.ones(2))
    pristine = judge.pristine_for([call])[0]
    out = {
        "plain": True,
        "type": "Tensor",
        "shape": [3],
        "dtype": "torch.float32",
        "device": "cpu",
        "aliases": [],
        "storage_nbytes": 12,
        "storage_offset": 0,
    }
    tensors = {"c1.out": torch.ones(2)}
    try:
        judge.judge_kernel_call(
            call, 1, _claim(out, launches=[_launch()]), tensors, pristine, None, True
        )
    except RecordError as exc:
        assert "disagree" in str(exc)
    else:
        raise AssertionError("a contradiction passed")


def test_error_calls_judge_type_message_and_order():
    call = Call("error", expect_error="TypeError", expect_names=("x",), note="n")
    assert judge.judge_error_call(call, _claim({"type": "Tensor"}))[0][0][0] == (
        "error-type"
    )
    raised = {"type": "TypeError", "mro": ["TypeError"], "message": "bad input"}
    failures, evaluated = judge.judge_error_call(
        call, _claim(raised=raised, launches=[_launch()])
    )
    assert [c for c, _ in failures] == ["error-message", "validates-first"]
    assert evaluated == 3


def test_end_of_run_checks_are_counted_and_catch_a_later_change():
    from scripts.qualify.cases import cases

    case = cases()[0]
    result = judge.CaseResult(case, "pass", calls=1, checks=5)
    kept = torch.tensor([1.0, 2.0])
    item = judge.Judged(
        result, {"k0.c1.out": kept}, {"k0.chain0.x": kept}, {"k0.c1.out": 1}
    )
    item.where["k0.chain0.x"] = 1
    final = {"k0.c1.out": torch.tensor([1.0, 5.0]), "k0.chain0.x": kept.clone()}
    assert judge.judge_end_of_run([item], final) == 2
    assert result.checks == 7
    assert result.result == "fail"
    assert result.failures[0].check == "unchanged-after-return"
    assert not math.isnan(result.seconds)


def test_a_result_with_a_bigger_storage_behind_it_is_named():
    padded = torch.tensor([1.5, 0.0, 3.5, 7.0])  # a buffer rounded up
    failures, _, _ = _judge(padded[:3])
    assert [c for c, _ in failures] == ["output-compact"]
    assert "16 bytes" in failures[0][1] and "for 12 bytes" in failures[0][1]
    failures, _, _ = _judge(padded[1:4] * 0 + torch.tensor([1.5, 0.0, 3.5]))
    assert failures == []  # a fresh tensor of its own passes


def test_bfloat16_rounding_is_judged_exactly_where_values_allow_one_ulp():
    x = torch.tensor([1.0, 1.0, 2.0], dtype=torch.bfloat16)
    r = torch.tensor([2**-8, 3 * 2**-8, 2**-7], dtype=torch.bfloat16)
    nearest_even = (x.float() + r.float()).bfloat16()  # a tie, up, a tie
    assert judge.rounding_problem(nearest_even, nearest_even) is None
    half_up = torch.tensor([1 + 2**-7, 1 + 2**-6, 2.0], dtype=torch.bfloat16)
    failures, _, _ = _judge(half_up, x=x, r=r)
    assert [c for c, _ in failures] == ["rounding"]  # within 1 ulp: values pass
    assert "1 of 3 elements" in failures[0][1]
    failures, _, _ = _judge(nearest_even, x=x, r=r)
    assert failures == []


def test_an_error_message_must_name_the_argument_and_show_the_value():
    call = Call(
        "error",
        expect_error="TypeError",
        expect_names=("x", "residual"),
        expect_values=("float64",),
        note="n",
    )
    assert judge.message_problem("x has dtype torch.float64", call) is None
    signature = "residual_add_relu(x, residual): unsupported input"
    assert "does not name" in judge.message_problem(signature, call)
    assert "does not show" in judge.message_problem("x has a bad dtype", call)


def test_a_tf32_dot_is_named_only_where_a_float32_result_came_from_one():
    tf32 = [_launch(kernel="mm_kernel", tf32_dots=3)]
    said = judge.tf32_said(tf32, torch.zeros(2))
    assert said.startswith("TF32: mm_kernel ran a float32 tl.dot")
    assert judge.tf32_said(tf32, torch.zeros(2, dtype=torch.float16)) == ""
    assert judge.tf32_said([_launch(tf32_dots=0)], torch.zeros(2)) == ""


def test_a_task_gives_the_bound_its_reference_and_shape():
    from scripts.qualify.task import find

    attention = find("attention")
    descriptor = attention.descriptor_object
    q, k, v = (torch.randn(1, 1, 5, 16, dtype=torch.float64) for _ in range(3))
    causal = attention.answer(q, k, v)
    assert judge.bound_problem(causal, [q, k, v], descriptor, attention)[0] is None
    full = descriptor.reference(q, k, v)  # not causal: every key seen
    problem, _ = judge.bound_problem(full, [q, k, v], descriptor, attention)
    assert "outside the error bound" in problem
