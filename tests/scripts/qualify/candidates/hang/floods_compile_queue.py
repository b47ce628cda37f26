"""A residual add + ReLU that floods the parent's compile queue: every call
launches its kernel 200 times, each with another value of a constexpr the
kernel never reads, so every launch is a specialisation of its own that
the parent must compile for sm_90a.

What it shows: the parent compiles at most 64 specialisations a run and
stops compiling at the run's deadline, so the run ends by its deadline
however many compiles the candidate asks for (tests/scripts/qualify/
test_evaluator.py runs it with a short deadline).
Expected check: compiles-for-gpu
"""

import torch
import triton
import triton.language as tl


@triton.jit
def salted_kernel(x_ptr, r_ptr, out_ptr, n, SALT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(x_ptr + offs, mask=mask) + tl.load(r_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(y > 0, y, 0.0), mask=mask)


def _validate(x, residual):
    # Refuses what the contract refuses, so the flood is its only fault.
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
    n = x.numel()
    for salt in range(200):  # 200 distinct specialisations per call
        grid = (triton.cdiv(n, 1024),)
        salted_kernel[grid](x, residual, out, n, SALT=salt, BLOCK=1024)
    return out
