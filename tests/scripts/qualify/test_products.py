"""The families of matrix products (scripts/qualify/products.py): what
their module docstring promises about the cases, held to the inputs the
cases build (so each corpus candidate is caught by its one case)."""

import pytest
import torch

from scripts.qualify import evaluator
from scripts.qualify.cases import cases
from scripts.qualify.task import find

F32, HALVES = torch.float32, (torch.float16, torch.bfloat16)


def values_calls(name):
    """(case name, the call's input specs) of every values call."""
    return [
        (case.name, call)
        for case in cases(find(name))
        if case.kind == "kernel"
        for call in case.build("cpu")
    ]


@pytest.mark.parametrize("name", ["matmul", "attention"])
def test_float32_inputs_are_in_the_float32_case_alone(name):
    for case, call in values_calls(name):
        dtypes = {spec["base"].dtype for spec in call.args}
        assert dtypes == ({F32} if case == "float32" else dtypes & set(HALVES)), case
        assert len(dtypes) == 1, case


def test_matmul_cases_each_catch_their_own_candidate():
    for case, call in values_calls("matmul"):
        (M, K), (K2, N) = (spec["size"] for spec in call.args)
        assert K == K2 and call.out_size == (M, N), case
        inputs = sum(spec["base"].numel() for spec in call.args)
        itemsize = call.args[0]["base"].itemsize
        assert evaluator.bundle_limit([call]) >= (M * N + inputs) * itemsize, case
        row_major = all(spec["stride"][-1] == 1 for spec in call.args)
        assert row_major == (case != "transposed"), case
        assert (K > 128) == (case == "long-k"), case
        if call.args[0]["base"].dtype in HALVES:  # off version 2's TMA path
            assert (K * 2) % 16 or (N * 2) % 16 or not row_major, case


def test_attention_cases_each_catch_their_own_candidate():
    for case, call in values_calls("attention"):
        B, H, S, D = call.args[0]["size"]
        assert all(spec["size"] == [B, H, S, D] for spec in call.args), case
        assert (S > 16 and S % 16 != 0) == (case == "ragged-s"), case
        contiguous = call.args[0]["stride"] == [H * S * D, S * D, D, 1]
        assert contiguous == (case != "bshd-layout"), case
        if call.args[0]["base"].dtype in HALVES:  # off version 3's TMA path
            assert (D * 2) % 16, case


def test_a_matmul_case_names_both_operands_shapes():
    ragged = next(c for c in cases(find("matmul")) if c.name == "ragged")
    assert ragged.inputs == "a (37, 45), b (45, 71) float16"
    refusals = next(c for c in cases(find("attention")) if c.name == "unsupported")
    assert "q=[1.0]" in refusals.inputs  # not the matmul family's words
