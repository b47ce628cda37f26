"""The sm_90a compile check (scripts/qualify/compile_check.py)."""

import pytest
import torch
import triton
import triton.language as tl

from scripts.qualify import compile_check


@triton.jit
def _copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_a_launch_becomes_its_triton_specialisation():
    x = torch.ones(4, dtype=torch.bfloat16)
    signature, constexprs, options = compile_check.specialisation(
        _copy.fn, (x, x, 4), {"BLOCK": 16, "num_warps": 2}
    )
    assert signature == {
        "x_ptr": "*bf16",
        "out_ptr": "*bf16",
        "n": "i32",
        "BLOCK": "constexpr",
    }
    assert constexprs == {"BLOCK": 16} and options == {"num_warps": 2}
    big = compile_check.specialisation(_copy.fn, (x, x, 2**40), {"BLOCK": 16})
    assert big[0]["n"] == "i64"


def test_a_missing_argument_is_the_compilers_error_not_ours():
    with pytest.raises(TypeError, match="no value for argument BLOCK"):
        compile_check.specialisation(_copy.fn, (None, None, 4), {})
