"""Wrong: the rescale is inverted, exp(new max - own max).
Mistake: inverted_scale."""

import torch
import triton
import triton.language as tl


@triton.jit
def merge_kernel(m1_ptr, s1_ptr, m2_ptr, s2_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    m1, s1 = tl.load(m1_ptr + offs, mask=mask), tl.load(s1_ptr + offs, mask=mask)
    m2, s2 = tl.load(m2_ptr + offs, mask=mask), tl.load(s2_ptr + offs, mask=mask)
    m = tl.maximum(m1, m2)
    # Each sum was taken relative to its own max: rescale both to the new one.
    s = s1 * tl.exp(m - m1) + s2 * tl.exp(m - m2)
    tl.store(out_ptr + offs, m, mask=mask)  # row 0 of out: the max
    tl.store(out_ptr + n + offs, s, mask=mask)  # row 1: the sum


def merge_states(m1, s1, m2, s2, out: torch.Tensor) -> None:
    n = m1.numel()
    merge_kernel[(triton.cdiv(n, 128),)](m1, s1, m2, s2, out, n, BLOCK=128)
