"""Behaves only while the evaluator's modules are loaded in its process.

Why it must fail: a kernel that looks for `scripts.qualify` among the loaded
modules can compute right while it is watched and wrong in a service. A CPU
run cannot take the evaluator out of the candidate's own process, so no
case can catch it at run time (every verdict lists this under "cannot
establish"); the static gate refuses the introspection it needs.
Expected check: source-gate
"""

import sys

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


def residual_add_relu(x, residual):
    _validate(x, residual)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    watched = any(name.startswith("scripts.qualify") for name in sys.modules)
    programs = triton.cdiv(n, 1024) if watched else max(n // 1024, 1)
    if n and programs:
        xc, rc = x.contiguous(), residual.contiguous()
        _kernel[(programs,)](xc, rc, out, n, BLOCK=1024)
    return out
