"""Computes right only on inputs that are views, as the evaluator's were.

Why it must fail: every input the evaluator used to pass was an as_strided
view, so a kernel that drops its last partial block on tensors that are not
views (a model's fresh activations) passed every case. The cases now pass
fresh allocations too (the mixed-sign call of each size case, the widened
bfloat16 inputs), and there it leaves the tail unwritten.
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


def residual_add_relu(x, residual):
    _validate(x, residual)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    watched = x._base is not None  # the evaluator's inputs were all views
    programs = triton.cdiv(n, 1024) if watched else max(n // 1024, 1)
    if n and programs:
        xc, rc = x.contiguous(), residual.contiguous()
        _kernel[(programs,)](xc, rc, out, n, BLOCK=1024)
    return out
