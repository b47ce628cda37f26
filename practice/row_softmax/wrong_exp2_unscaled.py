"""Wrong: exp2 without scaling x by log2(e) is a softmax of x * ln(2). No
hint names this (no condition of one is seen), so the line says only what
is off: the grader stays silent rather than guess.
Mistake: none."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, stride_r, stride_c, BLOCK: tl.constexpr):
    row = tl.program_id(0)  # one program per row
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    # Masked lanes load as -inf: exp(-inf) = 0 adds nothing to the sum.
    x = tl.load(
        x_ptr + row * stride_r + cols * stride_c, mask=mask, other=-float("inf")
    )
    x = x - tl.max(x, axis=0)  # the largest exponent is 0: no overflow
    e = tl.exp2(x)  # base 2, but x is not scaled by log2(e)
    tl.store(out_ptr + row * N + cols, e / tl.sum(e, axis=0), mask=mask)


def row_softmax(x: torch.Tensor, out: torch.Tensor) -> None:
    M, N = out.shape
    BLOCK = triton.next_power_of_2(N)  # the whole row in one block
    softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK=BLOCK)
