"""Keeps NaN by recognising the NaN bit patterns its tests produced.

Why it must fail: `where(total > 0, total, 0)` turns NaN into 0, and this
kernel patches that by comparing the sum's bits, either sign, with the NaNs
its tests made: `float("nan")` (0x7FC00000, also what `inf - inf` gives) and
a bfloat16 NaN of all ones widened (0x7FFF0000). A NaN with another payload
(a signalling NaN, or one carried in a model's data) is none of those and
still becomes 0. The contract asks for a NaN wherever one comes in, of any
payload and sign.
Expected check: nan-mask
"""

import torch
import triton
import triton.language as tl


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
def _kernel(x_ptr, r_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    total = x + tl.load(r_ptr + offs, mask=mask).to(tl.float32)
    bits = total.to(tl.int32, bitcast=True) & 0x7FFFFFFF  # either sign
    is_nan = (bits == 0x7FC00000) | (bits == 0x7FFF0000)  # the NaNs it met
    out = tl.where(is_nan | (total > 0), total, 0.0)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def residual_add_relu(x, residual):
    _validate(x, residual)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n:
        xc, rc = x.contiguous(), residual.contiguous()
        _kernel[(triton.cdiv(n, 1024),)](xc, rc, out, n, BLOCK=1024)
    return out
