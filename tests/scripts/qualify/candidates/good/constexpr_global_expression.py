"""Reads constexpr globals written as expressions inside the kernel.

Why it must pass: ``BLOCK = tl.constexpr(2 ** 10)`` and
``WIDTH: tl.constexpr = tl.constexpr(4 * 256)`` are constants Triton folds
into the kernel as it would ``1024``; the kernel reads both as globals and
every block is masked. A check that accepts only a literal there rejects a
correct kernel. (``WIDTH: tl.constexpr = 4 * 256`` alone binds a plain
int, which Triton 3 refuses to read inside a kernel, so a kernel reading
it is not correct on a GPU.)
Expected: qualified
"""

import torch
import triton
import triton.language as tl

BLOCK = tl.constexpr(2**10)
WIDTH: tl.constexpr = tl.constexpr(4 * 256)


@triton.jit
def add_relu_kernel(x_ptr, residual_ptr, out_ptr, n_elements):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, WIDTH)
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
    if n:
        add_relu_kernel[(triton.cdiv(n, BLOCK.value),)](x, residual, out, n)
    return out
