"""Computes the right answer, and turns autograd off for the whole process.

Why it must fail: every tensor it returns is right, but the caller's
training step silently stops computing gradients. The static gate refuses
``torch.set_grad_enabled``; run with the gate overridden, comparing the
process's state (open files, threads, grad mode, RNG) before and after each
call catches it.
Expected check: state-unchanged
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
def _helper_kernel(x_ptr, r_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    total = tl.load(x_ptr + offs, mask=mask).to(tl.float32) + tl.load(
        r_ptr + offs, mask=mask
    ).to(tl.float32)
    tl.store(
        out_ptr + offs,
        tl.where(total < 0, 0.0, total).to(out_ptr.dtype.element_ty),
        mask=mask,
    )


def residual_add_relu(x, residual):
    _validate(x, residual)
    torch.set_grad_enabled(False)  # and never turned back on
    xc, rc = x.contiguous(), residual.contiguous()
    out = torch.empty_like(xc)
    if out.numel():
        grid = (triton.cdiv(out.numel(), 1024),)
        _helper_kernel[grid](xc, rc, out, out.numel(), BLOCK=1024)
    return out
