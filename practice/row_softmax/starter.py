"""Softmax of each row (practice exercise `row-softmax`).

Fill in the kernel, then run
    .venv/bin/python -m scripts.practice check row-softmax work/row_softmax.py
"""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, stride_r, stride_c, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    # TODO: load the row (what should masked lanes hold?), subtract its max,
    # exponentiate, divide by the sum, store.
    pass


def row_softmax(x: torch.Tensor, out: torch.Tensor) -> None:
    M, N = out.shape
    BLOCK = triton.next_power_of_2(N)
    softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK=BLOCK)
