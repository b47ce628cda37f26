"""An inclusive scan that accepts a tensor of any rank and scans it as if
it were flat.

What is wrong: the contract refuses anything but 1-D with a ValueError
naming x; a 2-D input here returns a flat scan of the wrong shape.
Expected check: error-type
"""

import torch
import triton
import triton.language as tl


@triton.jit
def flattening_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    carry = tl.zeros([1], tl.float32)
    for start in range(0, n, BLOCK):
        mask = start + offs < n
        x = tl.load(x_ptr + start + offs, mask=mask, other=0.0).to(tl.float32)
        prefix = tl.cumsum(x, axis=0) + carry
        tl.store(out_ptr + start + offs, prefix.to(out_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(x, axis=0)


def cumsum(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"x has dtype {x.dtype}; use float32, float16 or bfloat16")
    values = x.reshape(-1).contiguous()  # any shape, scanned flat
    out = torch.empty_like(values)
    if values.numel():
        flattening_kernel[(1,)](values, out, values.numel(), BLOCK=1024)
    return out
