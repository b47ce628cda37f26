"""Wrong: the grid has one column block per row.
Mistake: columns_unwritten."""

import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, N, stride_r, stride_c, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    # A view's element (row, col) sits at row * stride(0) + col * stride(1).
    x = tl.load(x_ptr + row * stride_r + cols * stride_c, mask=mask)
    tl.store(out_ptr + row * N + cols, x, mask=mask)  # out is contiguous


def copy_2d(x: torch.Tensor, out: torch.Tensor) -> None:
    M, N = out.shape
    BLOCK = 32
    grid = (M, 1)
    copy_kernel[grid](x, out, N, x.stride(0), x.stride(1), BLOCK=BLOCK)
