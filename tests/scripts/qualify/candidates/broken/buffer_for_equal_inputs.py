"""Reuses one output buffer for repeated calls on the same, unchanged inputs.

Why it must fail: each call's values are right, and since the inputs did not
change the buffer gets the same bits again, so no earlier result changes.
But the caller now holds two "results" that are one tensor: the next write
to one is a write to the other. Only the aliasing check sees it.
Expected check: output-fresh
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
    total = tl.load(x_ptr + offs, mask=mask).to(tl.float32) + tl.load(
        r_ptr + offs, mask=mask
    ).to(tl.float32)
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(x, residual):
    xc, rc = x.contiguous(), residual.contiguous()
    out = torch.empty_like(xc)
    if out.numel():
        _kernel[(triton.cdiv(out.numel(), 1024),)](xc, rc, out, out.numel(), BLOCK=1024)
    return out


_SEEN = []  # (copy of x, copy of residual, the buffer returned)


def residual_add_relu(x, residual):
    _validate(x, residual)
    for old_x, old_r, out in _SEEN:
        same = old_x.shape == x.shape and old_x.dtype == x.dtype
        if same and torch.equal(old_x, x) and torch.equal(old_r, residual):
            if out.numel():
                xc, rc = x.contiguous(), residual.contiguous()
                grid = (triton.cdiv(out.numel(), 1024),)
                _kernel[grid](xc, rc, out, out.numel(), BLOCK=1024)
            return out
    out = _launch(x, residual)
    _SEEN.append((x.clone(), residual.clone(), out))
    return out
