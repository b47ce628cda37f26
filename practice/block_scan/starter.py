"""Inclusive prefix sum across blocks (practice exercise `block-scan`).

Fill in both kernels, then run
    .venv/bin/python -m scripts.practice check block-scan work/block_scan.py
"""

import torch
import triton
import triton.language as tl


@triton.jit
def block_scan_kernel(x_ptr, out_ptr, totals_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    # TODO: this block's inclusive scan into out, its total into totals[pid].
    pass


@triton.jit
def add_carry_kernel(out_ptr, totals_ptr, n, BLOCK: tl.constexpr, NB: tl.constexpr):
    pid = tl.program_id(0)
    # TODO: add the carry (what must it hold?) to this block's results.
    pass


def cumsum(x: torch.Tensor, out: torch.Tensor) -> None:
    n, BLOCK = x.numel(), 256
    blocks = triton.cdiv(n, BLOCK)
    totals = torch.empty(blocks, dtype=x.dtype, device=x.device)
    block_scan_kernel[(blocks,)](x, out, totals, n, BLOCK=BLOCK)
    NB = triton.next_power_of_2(blocks)
    add_carry_kernel[(blocks,)](out, totals, n, BLOCK=BLOCK, NB=NB)
