"""Wrong: the select sends NaN to 0 (v > 0 is false for NaN).
Mistake: nan_lost."""

import triton
import triton.language as tl


@triton.jit
def relu_scale_kernel(x_ptr, out_ptr, n, scale, bias, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask) * scale + bias
    tl.store(out_ptr + offs, tl.where(v > 0, v, 0.0), mask=mask)


def relu_scale(x, out, scale, bias):
    n = out.numel()
    relu_scale_kernel[(triton.cdiv(n, 256),)](x, out, n, scale, bias, BLOCK=256)
