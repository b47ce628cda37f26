"""The interpreter's bfloat16 addition, as the correctness page states it."""

import os

import pytest
import torch

from snippets.kernel_correctness_contracts.interpreter_bf16 import (
    bit_pattern_sum,
    native_add,
)

pytestmark = pytest.mark.skipif(
    os.environ.get("TRITON_INTERPRET") != "1",
    reason="a statement about the interpreter",
)


def test_native_bfloat16_add_adds_bit_patterns_under_the_interpreter():
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(1000, generator=generator).to(torch.bfloat16)
    b = torch.randn(1000, generator=generator).to(torch.bfloat16)
    got = native_add(a, b)
    assert not torch.equal(got, a + b)
    assert torch.equal(got.view(torch.int16), bit_pattern_sum(a, b).view(torch.int16))
