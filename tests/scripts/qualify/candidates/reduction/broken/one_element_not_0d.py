"""A sum returned as a tensor of shape (1,) instead of a 0-d tensor.

What is wrong: the value is right, but the contract's result is 0-d, as
torch.sum's: a (1,) result broadcasts differently in the caller's code.
Expected check: output-type
"""

import torch
import triton
import triton.language as tl


@triton.jit
def shaped_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    partial = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        mask = start + offs < n
        partial += tl.load(x_ptr + start + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr, tl.sum(partial, axis=0).to(out_ptr.dtype.element_ty))


def reduce_sum(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"x has dtype {x.dtype}; use float32, float16 or bfloat16")
    values = x.contiguous().reshape(-1)
    out = torch.empty((1,), dtype=x.dtype, device=x.device)
    shaped_sum_kernel[(1,)](values, out, values.numel(), BLOCK=1024)
    return out
