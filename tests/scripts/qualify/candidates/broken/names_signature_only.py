"""Raises the right exception types, naming the arguments only through the
function's signature.

Why it must fail: "residual_add_relu(x, residual): unsupported input" has
both argument names in it, yet says neither which one is wrong nor what its
value is; a caller must read the source to fix the call. The contract asks
for the offending argument and its value (its dtype, shape or device).
Expected check: error-message
"""

import torch
import triton
import triton.language as tl

WHERE = "residual_add_relu(x, residual)"


def _validate(x, residual):
    for value in (x, residual):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{WHERE}: expected tensors")
        if value.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            raise TypeError(f"{WHERE}: unsupported dtype")
    if x.dtype != residual.dtype:
        raise TypeError(f"{WHERE}: the dtypes differ")
    if x.shape != residual.shape:
        raise ValueError(f"{WHERE}: the shapes differ")
    if x.device != residual.device:
        raise ValueError(f"{WHERE}: the devices differ")


@triton.jit
def _kernel(x_ptr, r_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    total = x + tl.load(r_ptr + offs, mask=mask).to(tl.float32)
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def residual_add_relu(x, residual):
    _validate(x, residual)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n:
        xc, rc = x.contiguous(), residual.contiguous()
        _kernel[(triton.cdiv(n, 1024),)](xc, rc, out, n, BLOCK=1024)
    return out
