"""A sum in two launches: every program of the first sums one 1024-element
block into a float32 scratch vector of partials, and one program of the
second adds the partials up and rounds once to the input's dtype.

Why it must pass: the scratch is the candidate's own, no two programs
write one address and no atomic is used, so the sum is the same every
call; every step is float32, inside the bound a float32 sum of this length
allows.
Expected: qualified
"""

import torch
import triton
import triton.language as tl


@triton.jit
def block_sums_kernel(x_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.store(partial_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def add_partials_kernel(partial_ptr, out_ptr, count, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    total = tl.zeros([BLOCK], tl.float32)
    for start in range(0, count, BLOCK):
        mask = start + offs < count
        total += tl.load(partial_ptr + start + offs, mask=mask, other=0.0)
    tl.store(out_ptr, tl.sum(total, axis=0).to(out_ptr.dtype.element_ty))


def reduce_sum(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"x has dtype {x.dtype}; use float32, float16 or bfloat16")
    values = x.contiguous().reshape(-1)
    n = values.numel()
    count = triton.cdiv(n, 1024)
    partials = torch.empty(max(count, 1), dtype=torch.float32, device=x.device)
    out = torch.empty((), dtype=x.dtype, device=x.device)
    if count:
        block_sums_kernel[(count,)](values, partials, n, BLOCK=1024)
    add_partials_kernel[(1,)](partials, out, count, BLOCK=256)
    return out
