"""Adds in bfloat16 whatever the input dtype.

Why it must fail: float32 inputs lose 16 bits of their significand in the
sum. An exact comparison for float32 (the contract's tolerance) catches it;
a loose tolerance such as 1e-2 would not.
Expected check: values
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def low_precision_kernel(
    x_ptr, residual_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask).to(tl.bfloat16).to(tl.float32)
    residual = tl.load(residual_ptr + offs, mask=mask).to(tl.bfloat16)
    total = (x + residual.to(tl.float32)).to(tl.bfloat16).to(tl.float32)
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
        low_precision_kernel[grid](x, residual, out, n, BLOCK_SIZE=BLOCK_SIZE)
    return out
