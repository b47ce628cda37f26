"""Launches one lane for a one-element input, whose ReLU is a Python
conditional expression.

Why it must fail: the interpreter runs the conditional as Python, so every
value is right, but the compiler refuses a conditional on a tensor whose
branches have different types, and only the specialisation with
`BLOCK == 1` reaches it (a constexpr branch is compiled only when taken).
A compile check that compiled each kernel once, with its first launch's
types, passed it whenever the first case launched had more than one
element; the parent now compiles every specialisation the launches report.
Expected check: compiles-for-gpu
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
    if BLOCK == 1:  # one element: a Python conditional does the ReLU
        out = total if total > 0 else 0.0
    else:
        out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out, mask=mask)


def residual_add_relu(x, residual):
    _validate(x, residual)
    xc, rc = x.contiguous(), residual.contiguous()
    out = torch.empty_like(xc)
    n = out.numel()
    if n:
        block = 1 if n == 1 else 1024  # one lane for one element
        _kernel[(triton.cdiv(n, block),)](xc, rc, out, n, BLOCK=block)
    return out
