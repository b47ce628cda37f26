"""Waits on a completion flag that its kernel only sets for full blocks.

Why it must fail: when the last block is partial, the flag is never written
and the host polls forever. A hang must be a rejection with the case named,
not a stuck evaluator, so every case runs under a timeout.
Expected check: completes
"""

import time

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def flagged_kernel(
    x_ptr, residual_ptr, out_ptr, flag_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    residual = tl.load(residual_ptr + offs, mask=mask)
    total = x.to(tl.float32) + residual.to(tl.float32)
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)
    # Bug: the last program raises the flag only if its block is full.
    last = pid == tl.num_programs(0) - 1
    full = (pid + 1) * BLOCK_SIZE <= n_elements
    tl.store(flag_ptr, 1, mask=last & full)


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
        flag = torch.zeros(1, dtype=torch.int32, device=x.device)
        grid = (triton.cdiv(n, BLOCK_SIZE),)
        flagged_kernel[grid](x, residual, out, flag, n, BLOCK_SIZE=BLOCK_SIZE)
        while flag.item() == 0:  # never true for a partial last block
            time.sleep(0.05)
    return out
