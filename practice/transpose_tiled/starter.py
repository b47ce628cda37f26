"""Transpose by tiles (practice exercise `transpose-tiled`).

Fill in the kernel, then run
    .venv/bin/python -m scripts.practice check transpose-tiled \
        work/transpose_tiled.py
"""

import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    # TODO: load the BM x BN tile of x (masked in both dimensions) and store
    # it, transposed, into the N x M out.
    pass


def transpose(x: torch.Tensor, out: torch.Tensor) -> None:
    M, N = x.shape
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    transpose_kernel[grid](x, out, M, N, BM=32, BN=32)
