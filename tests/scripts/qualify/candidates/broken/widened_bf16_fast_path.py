"""Reads float32 inputs whose low halves are zero as bfloat16, at half the bytes.

Why it must fail: a model that casts bfloat16 activations up to float32
passes values whose low 16 bits are zero, and loading them as bfloat16 is
exact; but the kernel then rounds the sum to bfloat16 as well, and the sum
of two bfloat16 values needs more bits than bfloat16 has. Only float32
inputs that are widened bfloat16 values take that path.
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
def _kernel(x_ptr, r_ptr, out_ptr, n, NARROW: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    total = x + tl.load(r_ptr + offs, mask=mask).to(tl.float32)
    if NARROW:  # the inputs were bfloat16 values: so, it assumes, is the sum
        total = total.to(tl.bfloat16).to(tl.float32)
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def _widened_bf16(t):
    return t.dtype == torch.float32 and not (t.view(torch.int32) & 0xFFFF).any()


def residual_add_relu(x, residual):
    _validate(x, residual)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return out
    narrow = _widened_bf16(x) and _widened_bf16(residual)
    if narrow:  # half the bytes read
        xc, rc = x.to(torch.bfloat16), residual.to(torch.bfloat16)
    else:
        xc, rc = x.contiguous(), residual.contiguous()
    _kernel[(triton.cdiv(n, 1024),)](xc, rc, out, n, NARROW=narrow, BLOCK=1024)
    return out
