"""An inclusive scan by one program that walks the blocks in order,
carrying the running total from each block into the next.

Why it must pass: one program is slow on a GPU (no parallelism across
blocks), but every block's prefix is its scan plus the carry, in float32,
so the values are right; the contract is about values, not speed.
Expected: qualified
"""

import torch
import triton
import triton.language as tl


@triton.jit
def carry_scan_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
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
    if x.dim() != 1:
        raise ValueError(f"x must be 1-D, got shape {tuple(x.shape)}")
    values = x.contiguous()
    out = torch.empty_like(values)
    if values.numel():
        carry_scan_kernel[(1,)](values, out, values.numel(), BLOCK=1024)
    return out
