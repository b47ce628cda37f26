"""Wrong: the last block's load is not masked, so it reads past the end.
Mistake: load_unmasked."""

import torch
import triton
import triton.language as tl


@triton.jit
def partial_sums_kernel(x_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(partial_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def total_kernel(partial_ptr, out_ptr, count, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)  # one program, every partial, a fixed tree
    partials = tl.load(partial_ptr + offs, mask=offs < count, other=0.0)
    tl.store(out_ptr, tl.sum(partials, axis=0))


def reduce_sum(x: torch.Tensor, out: torch.Tensor) -> None:
    n, BLOCK = x.numel(), 256
    count = triton.cdiv(n, BLOCK)
    partial = torch.empty(count, dtype=torch.float32, device=x.device)
    partial_sums_kernel[(count,)](x, partial, n, BLOCK=BLOCK)
    total_kernel[(1,)](partial, out, count, BLOCK=triton.next_power_of_2(count))
