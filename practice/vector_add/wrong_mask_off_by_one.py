"""A typical wrong attempt: the mask lets one lane past the end through.
Mistake: one_past_end."""

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs <= n  # one too many
    tl.store(
        out_ptr + offs,
        tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
        mask=mask,
    )


def vector_add(x, y, out):
    n = out.numel()
    add_kernel[(triton.cdiv(n, 128),)](x, y, out, n, BLOCK=128)
