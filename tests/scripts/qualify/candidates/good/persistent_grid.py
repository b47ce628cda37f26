"""A persistent kernel: a capped grid whose programs loop over the blocks.

Why it must pass: capping the number of programs is a legitimate design (it
bounds the launch and reuses programs) as long as every program strides over
the remaining blocks. The evaluator must not mistake a capped grid for a bug.
Expected: qualified
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 512
MAX_PROGRAMS = 64


@triton.jit
def persistent_kernel(
    x_ptr, residual_ptr, out_ptr, n_elements, n_blocks, BLOCK_SIZE: tl.constexpr
):
    # Program p handles blocks p, p + P, p + 2P, ... until none remain.
    for block in range(tl.program_id(0), n_blocks, tl.num_programs(0)):
        # (block * BLOCK_SIZE fits in int32: the launcher allows n < 2**31.)
        offs = block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
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
    if n == 0:
        return out
    if n >= 2**31:
        raise ValueError(f"x has {n} elements; this kernel supports < 2**31")
    n_blocks = triton.cdiv(n, BLOCK_SIZE)
    grid = (min(n_blocks, MAX_PROGRAMS),)
    persistent_kernel[grid](x, residual, out, n, n_blocks, BLOCK_SIZE=BLOCK_SIZE)
    return out
