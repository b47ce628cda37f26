"""An inclusive scan in three launches (reduce, then scan): every program
of the first sums its 1024-element block into a float32 vector of block
sums; one program of the second turns those into each block's carry (the
sum of the blocks before it); every program of the third scans its block
and adds its carry.

Why it must pass: no program waits on another (each launch ends before
the next begins), the scratch vectors are the candidate's own, and every
prefix is float32: the same sums in another grouping than one pass's.
Expected: qualified
"""

import torch
import triton
import triton.language as tl


@triton.jit
def block_sums_kernel(x_ptr, sums_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.store(sums_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def carries_kernel(sums_ptr, carry_ptr, blocks, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    before = tl.sum(tl.zeros([BLOCK], tl.float32), axis=0)  # a float32 0-d zero
    for start in range(0, blocks, BLOCK):
        mask = start + offs < blocks
        sums = tl.load(sums_ptr + start + offs, mask=mask, other=0.0)
        inclusive = tl.cumsum(sums, axis=0)
        tl.store(carry_ptr + start + offs, before + inclusive - sums, mask=mask)
        before += tl.sum(sums, axis=0)


@triton.jit
def scan_blocks_kernel(x_ptr, carry_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.cumsum(x, axis=0) + tl.load(carry_ptr + pid)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def cumsum(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"x has dtype {x.dtype}; use float32, float16 or bfloat16")
    if x.dim() != 1:
        raise ValueError(f"x must be 1-D, got shape {tuple(x.shape)}")
    values = x.contiguous()
    out = torch.empty_like(values)
    n = values.numel()
    if n:
        blocks = triton.cdiv(n, 1024)
        sums = torch.empty(blocks, dtype=torch.float32, device=x.device)
        carries = torch.empty(blocks, dtype=torch.float32, device=x.device)
        block_sums_kernel[(blocks,)](values, sums, n, BLOCK=1024)
        carries_kernel[(1,)](sums, carries, blocks, BLOCK=128)
        scan_blocks_kernel[(blocks,)](values, carries, out, n, BLOCK=1024)
    return out
