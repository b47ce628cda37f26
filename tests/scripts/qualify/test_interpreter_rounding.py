"""The interpreter's float32 -> bfloat16 conversion, made to round to nearest
even (scripts/qualify/interpreter_rounding.py)."""

import numpy as np
import torch
import triton
import triton.language as tl
from triton.runtime import interpreter

from scripts.qualify import interpreter_rounding


def _bits(values: torch.Tensor) -> np.ndarray:
    return values.view(torch.int32).numpy().view(np.uint32)


def test_bits_round_to_nearest_even_as_torch_does():
    ties = torch.tensor([1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 3.0e38, 1e-40])
    values = torch.cat([torch.randn(4000) * 1e3, ties, torch.tensor([float("inf")])])
    ours = interpreter_rounding.bf16_bits_nearest_even(_bits(values))
    assert np.array_equal(
        ours, values.bfloat16().view(torch.int16).numpy().view(np.uint16)
    )
    nans = torch.tensor([0x7F800001, 0xFFC00000 - (1 << 32)], dtype=torch.int32)
    out = interpreter_rounding.bf16_bits_nearest_even(_bits(nans.view(torch.float32)))
    assert torch.from_numpy(out.view(np.int16)).view(torch.bfloat16).isnan().all()
    assert out[1] >> 15 == 1  # the sign is kept


@triton.jit
def _to_bf16_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(tl.bfloat16))


def test_the_interpreter_rounds_once_fixed_and_truncates_before(monkeypatch):
    # restored after the test: the kernel tests measure the unfixed interpreter
    monkeypatch.setattr(interpreter, "_convert_float", interpreter._convert_float)
    x = torch.tensor([1 + 3 * 2**-8, 1 + 2**-8, 2.0 + 3 * 2**-7, -1.01] * 4)
    out = torch.empty(16, dtype=torch.bfloat16)
    _to_bf16_kernel[(1,)](x, out, BLOCK=16)
    assert not torch.equal(out, x.bfloat16())  # truncated: 1 ulp low
    assert interpreter_rounding.patchable()
    assert interpreter_rounding.round_bf16_to_nearest_even()
    _to_bf16_kernel[(1,)](x, out, BLOCK=16)
    assert torch.equal(out.view(torch.int16), x.bfloat16().view(torch.int16))
