"""Picks a block size by size class, and floor-divides the grid in one class.

Why it must fail: small tensors get 256-element blocks, large ones 1024, and
the class from 8192 to 16383 elements 4096-element blocks with a grid of
`n // 4096` programs, so the last partial block is never written. No case
had a size in that band; only a case in every power-of-two band reaches it.
Expected check: values
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
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def _size_class(n):
    """(block, programs) for n elements."""
    if n < 4096:
        return 256, triton.cdiv(n, 256)
    if 8192 <= n < 16384:
        return 4096, n // 4096  # whole blocks only
    return 1024, triton.cdiv(n, 1024)


def residual_add_relu(x, residual):
    _validate(x, residual)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n:
        block, programs = _size_class(n)
        xc, rc = x.contiguous(), residual.contiguous()
        _kernel[(programs,)](xc, rc, out, n, BLOCK=block)
    return out
