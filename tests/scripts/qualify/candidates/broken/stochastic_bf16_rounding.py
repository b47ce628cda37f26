"""Rounds bfloat16 results stochastically, with a new seed on every call.

Why it must fail: stochastic rounding (a training trick) lands within one
bfloat16 ulp of the exact sum, so every single call is inside the values
check's one-ulp bfloat16 tolerance under the interpreter; but it is not the
round to nearest even the contract asks for (the exact rounding check,
first), and two calls on the same inputs disagree (the repeat check).
Expected check: rounding
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024
_calls = [0]


@triton.jit
def stochastic_kernel(
    x_ptr,
    residual_ptr,
    out_ptr,
    n_elements,
    seed,
    ROUND_RANDOMLY: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    residual = tl.load(residual_ptr + offs, mask=mask)
    total = x.to(tl.float32) + residual.to(tl.float32)
    out = tl.where(total < 0, 0.0, total)
    if ROUND_RANDOMLY:
        # Add random low bits, then drop them: rounds up with probability
        # proportional to the remainder.
        noise = tl.randint(seed, offs.to(tl.int32)) & 0xFFFF
        bits = out.to(tl.uint32, bitcast=True)
        bits = (bits + noise.to(tl.uint32)) & 0xFFFF0000
        out = bits.to(tl.float32, bitcast=True)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def _validate(x, residual):
    for name, value in (("x", x), ("residual", residual)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor")
        if value.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            raise TypeError(f"{name} has unsupported dtype {value.dtype}")
    if x.dtype != residual.dtype:
        raise TypeError(f"residual is {residual.dtype} but x is {x.dtype}")
    if x.shape != residual.shape:
        raise ValueError(
            f"residual has shape {tuple(residual.shape)}, x has {tuple(x.shape)}"
        )
    if x.device != residual.device:
        raise ValueError(f"residual is on {residual.device}, x on {x.device}")


def residual_add_relu(x, residual):
    _validate(x, residual)
    x, residual = x.contiguous(), residual.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    if n:
        _calls[0] += 1
        grid = (triton.cdiv(n, BLOCK_SIZE),)
        stochastic_kernel[grid](
            x,
            residual,
            out,
            n,
            _calls[0],
            ROUND_RANDOMLY=x.dtype == torch.bfloat16,
            BLOCK_SIZE=BLOCK_SIZE,
        )
    return out
