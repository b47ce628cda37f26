"""A chained scan: program b loads the carry that program b - 1 stored,
scans its block with it, and stores the carry for program b + 1. Nothing
waits for the carry to be there.

Why it must fail: on a GPU program b can load the carry before program
b - 1 has stored it, and scan from whatever the buffer held. The
interpreter runs programs in order, so every carry is already stored and
every case's values are right; program b loads what program b - 1 stores,
with no atomic ordering the two: a race.
Expected: race-free
"""

import torch
import triton
import triton.language as tl


@triton.jit
def chained_kernel(x_ptr, out_ptr, carry_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    carry = tl.load(carry_ptr + pid - 1, mask=pid > 0, other=0.0)
    prefix = tl.cumsum(x, axis=0) + carry
    tl.store(out_ptr + offs, prefix.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(carry_ptr + pid, carry + tl.sum(x, axis=0))


def cumsum(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"x has dtype {x.dtype}; use float32, float16 or bfloat16")
    if x.dim() != 1:
        raise ValueError(f"x must be 1-D, got shape {tuple(x.shape)}")
    values = x.contiguous()
    out = torch.empty_like(values)
    blocks = triton.cdiv(values.numel(), 1024)
    if blocks:
        carries = torch.empty(blocks, dtype=torch.float32, device=x.device)
        chained_kernel[(blocks,)](values, out, carries, values.numel(), BLOCK=1024)
    return out
