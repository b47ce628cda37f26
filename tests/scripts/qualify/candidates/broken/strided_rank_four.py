"""A kernel that reads strided inputs in place, with no contiguous copies.

Why it must pass: it gathers each element through its own strides (up to four
dimensions), so transposed, offset, stepped and zero-stride inputs are read
where they lie, and writes a fresh row-major output. A different design from
the project's kernel, just as correct.
Refuses more than 4 dimensions, which the contract allows: the five-d case
raises ValueError on a supported input.
Expected check: completes
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024
MAX_RANK = 4


@triton.jit
def strided_kernel(
    x_ptr,
    residual_ptr,
    out_ptr,
    n_elements,
    size1,
    size2,
    size3,
    xs0,
    xs1,
    xs2,
    xs3,
    rs0,
    rs1,
    rs2,
    rs3,
    BLOCK_SIZE: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    # Row-major index -> coordinates (i0, i1, i2, i3).
    i3 = offs % size3
    rest = offs // size3
    i2 = rest % size2
    rest = rest // size2
    i1 = rest % size1
    i0 = rest // size1
    x_offs = i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3
    r_offs = i0 * rs0 + i1 * rs1 + i2 * rs2 + i3 * rs3
    x = tl.load(x_ptr + x_offs, mask=mask)
    residual = tl.load(residual_ptr + r_offs, mask=mask)
    total = x.to(tl.float32) + residual.to(tl.float32)
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def _validate(x, residual):
    for name, value in (("x", x), ("residual", residual)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor")
        if value.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            raise TypeError(f"{name} has unsupported dtype {value.dtype}")
        if value.dim() > MAX_RANK:
            raise ValueError(f"{name} has {value.dim()} dimensions; at most 4")
    if x.dtype != residual.dtype:
        raise TypeError(f"residual is {residual.dtype} but x is {x.dtype}")
    if x.shape != residual.shape:
        raise ValueError(
            f"residual has shape {tuple(residual.shape)}, x has {tuple(x.shape)}"
        )
    if x.device != residual.device:
        raise ValueError(f"residual is on {residual.device}, x on {x.device}")


def _padded(values, fill):
    return [fill] * (MAX_RANK - len(values)) + list(values)


def residual_add_relu(x, residual):
    _validate(x, residual)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = out.numel()
    if n == 0:
        return out
    sizes = _padded(x.shape, 1)
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    strided_kernel[grid](
        x,
        residual,
        out,
        n,
        sizes[1],
        sizes[2],
        sizes[3],
        *_padded(x.stride(), 0),
        *_padded(residual.stride(), 0),
        BLOCK_SIZE=BLOCK_SIZE,
    )
    return out
