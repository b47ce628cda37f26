"""Returns a fresh, right answer each call, and zeroes the previous call's
result when it is called again.

Why it must fail: every check taken when a call returns passes (the result
is right, fresh, and shares no memory with anything), and it starts no
thread. Only comparing every earlier result again at the end of the run
catches it.
Expected check: unchanged-after-return
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
def _helper_kernel(x_ptr, r_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    total = tl.load(x_ptr + offs, mask=mask).to(tl.float32) + tl.load(
        r_ptr + offs, mask=mask
    ).to(tl.float32)
    tl.store(
        out_ptr + offs,
        tl.where(total < 0, 0.0, total).to(out_ptr.dtype.element_ty),
        mask=mask,
    )


_EARLIER = []


def residual_add_relu(x, residual):
    _validate(x, residual)
    if _EARLIER:
        _EARLIER[-1].zero_()  # the previous result, after it was returned
    xc, rc = x.contiguous(), residual.contiguous()
    out = torch.empty_like(xc)
    if out.numel():
        grid = (triton.cdiv(out.numel(), 1024),)
        _helper_kernel[grid](xc, rc, out, out.numel(), BLOCK=1024)
    _EARLIER.append(out)
    return out
