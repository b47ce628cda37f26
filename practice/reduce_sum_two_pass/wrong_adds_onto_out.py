"""Wrong: blocks add into out with atomics, but out was never zeroed.
Mistake: added_onto_out."""

import triton
import triton.language as tl


@triton.jit
def sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def reduce_sum(x, out):
    n = x.numel()
    sum_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
