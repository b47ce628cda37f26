"""Copy a 2-D view of any strides (practice exercise `strided-copy-2d`).

Fill in the kernel's addresses, then run
    .venv/bin/python -m scripts.practice check strided-copy-2d \
        work/strided_copy_2d.py
"""

import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, N, stride_r, stride_c, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    # TODO: load x's elements (row, cols) through its strides; store them to
    # the contiguous out.
    pass


def copy_2d(x: torch.Tensor, out: torch.Tensor) -> None:
    M, N = out.shape
    BLOCK = 32
    grid = (M, triton.cdiv(N, BLOCK))
    copy_kernel[grid](x, out, N, x.stride(0), x.stride(1), BLOCK=BLOCK)
