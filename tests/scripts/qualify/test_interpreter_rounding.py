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


def test_tf32_bits_keep_ten_fraction_bits_rounded_to_nearest_even():
    values = torch.tensor(
        [1 + 2**-11, 1 + 3 * 2**-11, 1 + 2**-12, -(1 + 2**-10), 3.0e38, 1e-40]
    )
    out = interpreter_rounding.tf32_bits_nearest(_bits(values))
    got = torch.from_numpy(out.view(np.int32)).view(torch.float32)
    # ties go to the even neighbour; a quarter step goes down; TF32 values stay
    assert got[:4].tolist() == [1.0, 1 + 2**-9, 1.0, -(1 + 2**-10)]
    assert (out & 0x1FFF == 0).all()  # the low 13 bits are gone
    specials = torch.tensor([float("inf"), float("-inf"), float("nan")])
    again = interpreter_rounding.tf32_bits_nearest(_bits(specials))
    assert np.array_equal(again, _bits(specials))


@triton.jit
def _dot_kernel(a_ptr, out_ptr, IEEE: tl.constexpr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    if IEEE:
        c = tl.dot(a, a, input_precision="ieee")
    else:
        c = tl.dot(a, a)  # Triton's default: TF32 on a GPU
    tl.store(out_ptr + r[:, None] * 16 + r[None, :], c)


def test_a_default_precision_dot_is_rounded_as_a_gpu_rounds_it(monkeypatch):
    builder = interpreter.InterpreterBuilder
    monkeypatch.setattr(builder, "create_dot", builder.create_dot)  # restored
    seen = []
    assert interpreter_rounding.round_tf32_dots(lambda: seen.append(1))
    a = torch.randn(16, 16, generator=torch.Generator().manual_seed(0))
    truth = a.double() @ a.double()
    out = torch.empty(16, 16)
    _dot_kernel[(1,)](a, out, IEEE=True)
    assert (out.double() - truth).abs().max() < 1e-5 and not seen
    _dot_kernel[(1,)](a, out, IEEE=False)
    assert (out.double() - truth).abs().max() > 1e-3 and seen == [1]
    tf32 = a.view(torch.int32).numpy().view(np.uint32)
    rounded = interpreter_rounding.tf32_bits_nearest(tf32).view(np.float32)
    expected = torch.from_numpy(rounded.copy()).double()
    assert (out.double() - expected @ expected).abs().max() < 1e-4
    # bfloat16 values, widened, are exact in TF32: nothing changes
    b = a.bfloat16().float()
    _dot_kernel[(1,)](b, out, IEEE=False)
    assert (out.double() - b.double() @ b.double()).abs().max() < 1e-5
