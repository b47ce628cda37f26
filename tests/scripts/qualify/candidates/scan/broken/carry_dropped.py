"""An inclusive scan whose blocks each start again from zero: the carry
from earlier blocks is dropped.

What is wrong: inputs of one block (up to 1024 elements) are right; from
the second block on every prefix misses the sum of the blocks before it.
Expected check: values
Expected case: two-blocks
"""

import torch
import triton
import triton.language as tl


@triton.jit
def no_carry_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    carry = tl.zeros([1], tl.float32)
    for start in range(0, n, BLOCK):
        mask = start + offs < n
        x = tl.load(x_ptr + start + offs, mask=mask, other=0.0).to(tl.float32)
        prefix = tl.cumsum(x, axis=0) + carry * 0  # the carry dropped
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
        no_carry_kernel[(1,)](values, out, values.numel(), BLOCK=1024)
    return out
