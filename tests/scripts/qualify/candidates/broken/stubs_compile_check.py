"""Stubs the evaluator's compile check, then launches a kernel that cannot
compile.

Why it must fail: its kernel calls a plain Python helper (fine under the
interpreter, impossible for the compiler), and it replaces
``triton.compile`` in its own process with a stub that returns PTX for
sm_90a, so the worker's compile check, which runs in that process, passes.
Only the static gate catches it: assigning an attribute of an imported
module is refused before anything runs. Run with the gate overridden, it
qualifies, which is why the gate exists.
Expected check: source-gate
"""

import torch
import triton
import triton.language as tl


class _StubCompiled:
    asm = {"ptx": ".target sm_90a"}


triton.compile = lambda *args, **kwargs: _StubCompiled()


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


def _relu(value):  # not @triton.jit: fine for the interpreter only
    return tl.where(value < 0, 0.0, value)


@triton.jit
def _helper_kernel(x_ptr, r_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    total = tl.load(x_ptr + offs, mask=mask).to(tl.float32) + tl.load(
        r_ptr + offs, mask=mask
    ).to(tl.float32)
    tl.store(out_ptr + offs, _relu(total).to(out_ptr.dtype.element_ty), mask=mask)


def residual_add_relu(x, residual):
    _validate(x, residual)
    xc, rc = x.contiguous(), residual.contiguous()
    out = torch.empty_like(xc)
    if out.numel():
        grid = (triton.cdiv(out.numel(), 1024),)
        _helper_kernel[grid](xc, rc, out, out.numel(), BLOCK=1024)
    return out
