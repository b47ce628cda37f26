"""Gathers strided inputs through offset tables instead of copying them.

Why it must pass: for each input it builds, with torch, the element offset
of every position (the sum over dimensions of index times stride), and the
kernel loads through that table, so a transposed, sliced or broadcast input
is read where it lies, never made contiguous. The output is a fresh
contiguous tensor written in order. Unusual, and correct.
Expected: qualified
"""

import torch
import triton
import triton.language as tl

BLOCK = 512


@triton.jit
def gather_kernel(
    x_ptr, x_offsets, residual_ptr, r_offsets, out_ptr, n_elements, BLOCK: tl.constexpr
):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n_elements
    x = tl.load(x_ptr + tl.load(x_offsets + i, mask=mask, other=0), mask=mask)
    r = tl.load(residual_ptr + tl.load(r_offsets + i, mask=mask, other=0), mask=mask)
    total = x.to(tl.float32) + r.to(tl.float32)
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + i, out.to(out_ptr.dtype.element_ty), mask=mask)


def offset_table(t):
    """Each position's element offset from t's first element, in row-major order."""
    table = torch.zeros(t.shape, dtype=torch.int64, device=t.device)
    for dim, (size, stride) in enumerate(zip(t.shape, t.stride(), strict=True)):
        view = [1] * t.dim()
        view[dim] = size
        steps = torch.arange(size, dtype=torch.int64, device=t.device) * stride
        table += steps.view(view)
    return table.reshape(-1)


def _validate(x, residual):
    for name, value in (("x", x), ("residual", residual)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(
                f"{name} must be a torch.Tensor, got {type(value).__name__}"
            )
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
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = out.numel()
    if n:
        grid = (triton.cdiv(n, BLOCK),)
        gather_kernel[grid](
            x, offset_table(x), residual, offset_table(residual), out, n, BLOCK=BLOCK
        )
    return out
