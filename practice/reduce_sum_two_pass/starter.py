"""Sum a vector (practice exercise `reduce-sum-two-pass`).

Fill in both kernels, then run
    .venv/bin/python -m scripts.practice check reduce-sum-two-pass \
        work/reduce_sum_two_pass.py
"""

import torch
import triton
import triton.language as tl


@triton.jit
def partial_sums_kernel(x_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    # TODO: this block's elements (the tail masked), summed into partial[pid].
    pass


@triton.jit
def total_kernel(partial_ptr, out_ptr, count, BLOCK: tl.constexpr):
    # TODO: every partial, summed into out[0].
    pass


def reduce_sum(x: torch.Tensor, out: torch.Tensor) -> None:
    n, BLOCK = x.numel(), 256
    count = triton.cdiv(n, BLOCK)
    partial = torch.empty(count, dtype=torch.float32, device=x.device)
    partial_sums_kernel[(count,)](x, partial, n, BLOCK=BLOCK)
    total_kernel[(1,)](partial, out, count, BLOCK=triton.next_power_of_2(count))
