"""Wrong: the tile is stored where it was read, not at the swapped position.
Mistake: not_swapped."""

import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)  # both extents have a tail
    tile = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    # out is N x M: element (col, row) of out is element (row, col) of x.
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], tile, mask=mask)


def transpose(x: torch.Tensor, out: torch.Tensor) -> None:
    M, N = x.shape
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    transpose_kernel[grid](x, out, M, N, BM=32, BN=32)
