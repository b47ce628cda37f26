"""Wrong fix: the carry includes the block's own total.
Mistake: own_total."""

import torch
import triton
import triton.language as tl


@triton.jit
def block_scan_kernel(x_ptr, out_ptr, totals_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=offs < n)  # local
    tl.store(totals_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def add_carry_kernel(out_ptr, totals_ptr, n, BLOCK: tl.constexpr, NB: tl.constexpr):
    pid = tl.program_id(0)
    # The carry: the totals of every block before this one.
    before = tl.arange(0, NB)
    carry = tl.sum(tl.load(totals_ptr + before, mask=before <= pid, other=0), axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    local = tl.load(out_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, local + carry, mask=offs < n)


def cumsum(x: torch.Tensor, out: torch.Tensor) -> None:
    n, BLOCK = x.numel(), 256
    blocks = triton.cdiv(n, BLOCK)
    totals = torch.empty(blocks, dtype=x.dtype, device=x.device)
    block_scan_kernel[(blocks,)](x, out, totals, n, BLOCK=BLOCK)
    NB = triton.next_power_of_2(blocks)
    add_carry_kernel[(blocks,)](out, totals, n, BLOCK=BLOCK, NB=NB)
