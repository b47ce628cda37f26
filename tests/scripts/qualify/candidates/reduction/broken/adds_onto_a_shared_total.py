"""Each program sums its block and adds it onto one float32 total with a
plain load and store; a second launch rounds the total into the result.

Why it must fail: load, add, store is three steps, and on a GPU another
program can load the total between this one's load and its store, so one
block's sum is lost. The interpreter runs programs in order, so every
case's sum is right; every program loads and stores element 0 of the
total with nothing ordering them: a race.
Expected: race-free
"""

import torch
import triton
import triton.language as tl


@triton.jit
def add_block_kernel(x_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    block = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.store(total_ptr, tl.load(total_ptr) + tl.sum(block, axis=0))


@triton.jit
def round_total_kernel(total_ptr, out_ptr):
    tl.store(out_ptr, tl.load(total_ptr).to(out_ptr.dtype.element_ty))


def reduce_sum(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"x has dtype {x.dtype}; use float32, float16 or bfloat16")
    values = x.contiguous().reshape(-1)
    total = torch.zeros(1, dtype=torch.float32, device=x.device)
    out = torch.empty((), dtype=x.dtype, device=x.device)
    n = values.numel()
    if n:
        add_block_kernel[(triton.cdiv(n, 1024),)](values, total, n, BLOCK=1024)
    round_total_kernel[(1,)](total, out)
    return out
