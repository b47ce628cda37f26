"""Raises the right exception types with messages that name nothing.

Why it must fail: "unsupported dtype" does not say which argument to fix. The
contract asks every error to name the offending argument.
Expected check: error-message
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
    for value in (x, residual):
        if not isinstance(value, torch.Tensor):
            raise TypeError("expected tensors")
        if value.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            raise TypeError("unsupported dtype")
    if x.dtype != residual.dtype:
        raise TypeError("dtypes differ")
    if x.shape != residual.shape:
        raise ValueError("shapes differ")
    if x.device != residual.device:
        raise ValueError("devices differ")


def residual_add_relu(x, residual):
    _validate(x, residual)
    x, residual = x.contiguous(), residual.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    if n:
        grid = (triton.cdiv(n, BLOCK_SIZE),)
        add_relu_kernel[grid](x, residual, out, n, BLOCK_SIZE=BLOCK_SIZE)
    return out
