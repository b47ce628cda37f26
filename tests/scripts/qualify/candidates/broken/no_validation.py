"""Checks nothing about its arguments.

Why it must fail: float64, int32 and bool inputs are accepted silently, a
(6,) residual is read past its end for a (4, 6) x, and mismatched dtypes are
mixed. Every unsupported input must raise the contract's error before any
launch.
Expected check: error-type
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


def residual_add_relu(x, residual):
    x, residual = x.contiguous(), residual.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    if n:
        grid = (triton.cdiv(n, BLOCK_SIZE),)
        add_relu_kernel[grid](x, residual, out, n, BLOCK_SIZE=BLOCK_SIZE)
    return out
