"""Reads a broadcast input as a row loaded once, and assumes it is residual.

Why it must fail: a residual expanded over the rows (a bias) is the common
case, and the fast path for it is right; but when x is the expanded one, the
launcher still takes residual's first row as the broadcast row, so every row
gets row 0 of residual. Only a case with a zero stride in x shows it.
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
def _kernel(x_ptr, r_ptr, out_ptr, n, cols, ROW: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r_offs = offs % cols if ROW else offs  # the broadcast row, read once per column
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    r = tl.load(r_ptr + r_offs, mask=mask).to(tl.float32)
    total = x + r
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def residual_add_relu(x, residual):
    _validate(x, residual)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return out
    row = x.dim() == 2 and 0 in (x.stride(0), residual.stride(0))
    if row:  # a bias: keep one row, not the expanded copy
        cols = x.shape[1]
        full, bias = x.contiguous(), residual[0].contiguous()
    else:
        cols = 1
        full, bias = x.contiguous(), residual.contiguous()
    grid = (triton.cdiv(n, 1024),)
    _kernel[grid](full, bias, out, n, cols, ROW=row, BLOCK=1024)
    return out
