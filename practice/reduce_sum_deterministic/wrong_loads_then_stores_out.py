"""Wrong: every block loads out[0], adds its partial and stores it back.
The interpreter runs the blocks one after another, so the sum comes out
right there; on a GPU two blocks load the same out[0] and one partial is
lost.
Mistake: race."""

import triton
import triton.language as tl


@triton.jit
def sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    total = tl.load(out_ptr) + tl.sum(x, axis=0)
    tl.store(out_ptr, total)


def reduce_sum(x, out):
    n = x.numel()
    out.zero_()
    sum_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
