"""A sum over whole 1024-element blocks only: the loop stops before the
last, partial block.

What is wrong: sizes that are a multiple of 1024 are right; any other
loses its last n % 1024 elements (an input smaller than a block sums to 0).
Expected check: values
Expected case: size-257
"""

import torch
import triton
import triton.language as tl


@triton.jit
def whole_blocks_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    partial = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n - n % BLOCK, BLOCK):
        mask = start + offs < n
        partial += tl.load(x_ptr + start + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr, tl.sum(partial, axis=0).to(out_ptr.dtype.element_ty))


def reduce_sum(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"x has dtype {x.dtype}; use float32, float16 or bfloat16")
    values = x.contiguous().reshape(-1)
    out = torch.empty((), dtype=x.dtype, device=x.device)
    whole_blocks_kernel[(1,)](values, out, values.numel(), BLOCK=1024)
    return out
