"""Takes its block size's default from a module constant.

Why it must pass: ``BLOCK: tl.constexpr = DEFAULT_BLOCK`` with
``DEFAULT_BLOCK = 1024`` at module level is the same kernel as one whose
default is written ``1024``; the second kernel's launch passes
``BLOCK=HALF_BLOCK``, another module constant. Every block is masked. A
check that reads how the default is spelled, not what it is, rejects a
correct kernel.
Expected: qualified
"""

import torch
import triton
import triton.language as tl

DEFAULT_BLOCK = 1024
HALF_BLOCK = DEFAULT_BLOCK // 2


@triton.jit
def add_relu_kernel(
    x_ptr, residual_ptr, out_ptr, n_elements, BLOCK: tl.constexpr = DEFAULT_BLOCK
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
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
    x, residual = x.contiguous(), residual.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    if n >= DEFAULT_BLOCK:
        add_relu_kernel[(triton.cdiv(n, DEFAULT_BLOCK),)](x, residual, out, n)
    elif n:
        grid = (triton.cdiv(n, HALF_BLOCK),)
        add_relu_kernel[grid](x, residual, out, n, BLOCK=HALF_BLOCK)
    return out
