"""Returns the right answer, and a thread zeroes it a moment later.

Why it must fail: the bytes were right when the call returned, so every
value check taken at that moment passes. The thread it leaves running is
caught when the call returns (threads are compared before and after), and
comparing every earlier result again at the end of the run catches the late
write.
Expected check: state-unchanged
"""

import threading
import time

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


def _later(out):
    time.sleep(0.25)  # past the copy at return even on a loaded machine
    out.zero_()


def residual_add_relu(x, residual):
    _validate(x, residual)
    out = _launch(x, residual)
    threading.Thread(target=_later, args=(out,), daemon=True).start()
    return out
