"""Wrong: one program sums one block and stops.
Mistake: first_block."""

import triton
import triton.language as tl


@triton.jit
def sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(x, axis=0))


def reduce_sum(x, out):
    sum_kernel[(1,)](x, out, x.numel(), BLOCK=1024)
