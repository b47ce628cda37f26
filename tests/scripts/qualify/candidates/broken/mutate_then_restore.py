"""Negates x in place, computes, and negates it back before returning.

Why it must fail: the bytes of x are the same after the call, but for the
length of the call another reader of x saw wrong values. The in-place write
moves x's version counter, which the check reads.
Expected check: inputs-unchanged
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
    total = tl.load(x_ptr + offs, mask=mask).to(tl.float32) + tl.load(
        r_ptr + offs, mask=mask
    ).to(tl.float32)
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(x, residual):
    xc, rc = x.contiguous(), residual.contiguous()
    out = torch.empty_like(xc)
    if out.numel():
        _kernel[(triton.cdiv(out.numel(), 1024),)](xc, rc, out, out.numel(), BLOCK=1024)
    return out


def residual_add_relu(x, residual):
    _validate(x, residual)
    if x.is_contiguous():  # scratch use of the caller's tensor
        x.neg_()
        x.neg_()  # ...undone: the bits are back
    return _launch(x, residual)
