"""Each program stores its own tile and, ahead of it, zeros over the next
program's tile, which that program then overwrites with the right values.

Why it must fail: the values are right only when the next program stores
after this one. The interpreter runs programs in order, so every case's
values pass; on a GPU the programs run at once, and a tile whose own
program finished first is left holding zeros. Two programs store the same
elements with nothing ordering them: a race.
Expected: race-free
"""

import torch
import triton
import triton.language as tl


@triton.jit
def ahead_kernel(x_ptr, residual_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, 2 * BLOCK)
    mask = offs < n_elements
    mine = offs < (pid + 1) * BLOCK
    x = tl.load(x_ptr + offs, mask=mask & mine, other=0.0)
    residual = tl.load(residual_ptr + offs, mask=mask & mine, other=0.0)
    total = x.to(tl.float32) + residual.to(tl.float32)
    relu = tl.where(total < 0, 0.0, total)  # NaN stays NaN
    out = tl.where(mine, relu, 0.0)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


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


def residual_add_relu(x, residual):
    _validate(x, residual)
    x, residual = x.contiguous(), residual.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    if n:
        ahead_kernel[(triton.cdiv(n, 1024),)](x, residual, out, n, BLOCK=1024)
    return out
