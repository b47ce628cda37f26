"""Alternates two ReLU variants from call to call, to time them both.

Why it must fail: both variants give the right values, but one writes -0.0
for a negative sum (the sign a `total * 0` keeps) and the other +0.0, so
two calls on the same inputs differ bit for bit. Equal as numbers, so the
values check passes; only the repeat check sees it.
Expected check: deterministic
"""

import torch
import triton
import triton.language as tl

_timings = {"calls": 0}


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


@triton.jit
def _kernel(x_ptr, r_ptr, out_ptr, n, zero_bits, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    total = x + tl.load(r_ptr + offs, mask=mask).to(tl.float32)
    bits = tl.where(total < 0, zero_bits, total.to(tl.int32, bitcast=True))
    out = bits.to(tl.float32, bitcast=True)  # +0.0 or -0.0 for a negative sum
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def residual_add_relu(x, residual):
    _validate(x, residual)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    _timings["calls"] += 1
    zero_bits = -(2**31) if _timings["calls"] % 2 == 0 else 0  # -0.0 or +0.0
    if n:
        xc, rc = x.contiguous(), residual.contiguous()
        grid = (triton.cdiv(n, 1024),)
        _kernel[grid](xc, rc, out, n, zero_bits, BLOCK=1024)
    return out
