"""Wrong: block b loads the carry block b - 1 stored, with nothing that
waits for it. The interpreter runs the blocks in order, so every carry is
there in time; on a GPU block b can load it first.
Mistake: race."""

import triton
import triton.language as tl


@triton.jit
def chained_kernel(x_ptr, out_ptr, carry_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    carry = tl.load(carry_ptr + pid - 1, mask=pid > 0, other=0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0) + carry, mask=offs < n)
    tl.store(carry_ptr + pid, carry + tl.sum(x, axis=0))


def cumsum(x, out):
    n, BLOCK = x.numel(), 256
    blocks = triton.cdiv(n, BLOCK)
    carry = x.new_empty(blocks)
    chained_kernel[(blocks,)](x, out, carry, n, BLOCK=BLOCK)
