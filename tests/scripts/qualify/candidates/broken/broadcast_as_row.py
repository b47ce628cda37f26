"""Takes any 2-d input with a zero stride for a row expanded over the rows.

Why it must fail: a bias expanded along the rows (stride 0 in dimension 0)
and one value expanded everywhere are read right; a column expanded along
each row (stride 0 in the last dimension, a per-row scale) is read as its
first row, so every row gets the first row's value.
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
def _kernel(x_ptr, r_ptr, out_ptr, n, x_cols, r_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs % x_cols, mask=mask).to(tl.float32)
    r = tl.load(r_ptr + offs % r_cols, mask=mask).to(tl.float32)
    total = x + r
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def _as_row(t):
    """(tensor, period): an expanded 2-d input keeps only its first row."""
    if t.dim() == 2 and 0 in t.stride():
        return t[0].contiguous(), t.shape[1]
    flat = t.contiguous().reshape(-1)
    return flat, max(flat.numel(), 1)


def residual_add_relu(x, residual):
    _validate(x, residual)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return out
    (xs, x_cols), (rs, r_cols) = _as_row(x), _as_row(residual)
    _kernel[(triton.cdiv(n, 1024),)](xs, rs, out, n, x_cols, r_cols, BLOCK=1024)
    return out
