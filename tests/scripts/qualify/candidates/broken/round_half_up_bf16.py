"""Rounds float32 to bfloat16 by adding half an ulp to the bits: ties go up.

Why it must fail: `(bits + 0x8000) >> 16` is the shortcut seen in hand-
written converters; it rounds half away from zero, where the contract (and
the reference) round half to even, so a sum exactly halfway between two
bfloat16 values comes out one ulp high. That is within the interpreter's
one-ulp bfloat16 tolerance, so only the exact rounding check sees it.
Expected check: rounding
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
def _kernel(x_ptr, r_ptr, out_ptr, n, TO_BF16: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    total = x + tl.load(r_ptr + offs, mask=mask).to(tl.float32)
    out = tl.where(total < 0, 0.0, total)
    if TO_BF16:  # round by hand: add half an ulp, keep the top half
        bits = out.to(tl.uint32, bitcast=True) + 0x8000
        half = (bits >> 16).to(tl.uint16)
        tl.store(out_ptr + offs, half.to(tl.bfloat16, bitcast=True), mask=mask)
    else:
        tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def residual_add_relu(x, residual):
    _validate(x, residual)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n:
        xc, rc = x.contiguous(), residual.contiguous()
        bf16 = x.dtype == torch.bfloat16
        _kernel[(triton.cdiv(n, 1024),)](xc, rc, out, n, TO_BF16=bf16, BLOCK=1024)
    return out
