"""Keeps the sum x + residual in x's memory as scratch.

Why it must fail: the returned values are right, but the caller's x now
holds x + residual. A bit-by-bit snapshot of the inputs taken before the
call, compared after it, is the only check that sees it.
Expected check: inputs-unchanged
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def scratch_kernel(x_ptr, residual_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    residual = tl.load(residual_ptr + offs, mask=mask)
    total = x.to(tl.float32) + residual.to(tl.float32)
    tl.store(x_ptr + offs, total.to(x_ptr.dtype.element_ty), mask=mask)  # scratch
    out = tl.where(total < 0, 0.0, total)
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
        grid = (triton.cdiv(n, BLOCK_SIZE),)
        scratch_kernel[grid](x, residual, out, n, BLOCK_SIZE=BLOCK_SIZE)
    return out
