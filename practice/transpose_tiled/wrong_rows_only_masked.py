"""Wrong: only the row tail is masked.
Mistake: store_masked_past_end."""

import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] >= 0)
    tile = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    # out is N x M: element (col, row) of out is element (row, col) of x.
    tl.store(
        out_ptr + cols[:, None] * M + rows[None, :], tl.trans(tile), mask=tl.trans(mask)
    )


def transpose(x: torch.Tensor, out: torch.Tensor) -> None:
    M, N = x.shape
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    transpose_kernel[grid](x, out, M, N, BM=32, BN=32)
