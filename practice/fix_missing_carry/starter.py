"""Find and fix (`fix-missing-carry`): the results are right in the first
block and wrong after it. Fix it, then run
    .venv/bin/python -m scripts.practice check fix-missing-carry \
        work/fix_missing_carry.py
"""

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
    before = tl.arange(0, NB)
    carry = tl.load(totals_ptr + pid) * 0
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
