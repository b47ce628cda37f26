"""Hands strided tensors straight to a kernel that walks flat memory.

Why it must fail: the kernel assumes both inputs are row-major. When both are
transposed the same way it even gets the right answer (empty_like copies the
layout), which is why a test with one layout passes; with x column-major and
residual row-major it adds mismatched elements.
Expected check: values
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def add_relu_kernel(x_ptr, residual_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    residual = tl.load(residual_ptr + offs, mask=mask)
    total = x.to(tl.float32) + residual.to(tl.float32)
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
    out = torch.empty_like(x)
    n = out.numel()
    if n:
        grid = (triton.cdiv(n, BLOCK_SIZE),)
        add_relu_kernel[grid](x, residual, out, n, BLOCK_SIZE=BLOCK_SIZE)
    return out
