"""A tiled matmul with a K loop (practice exercise `matmul-tiled`).

Fill in the K loop, then run
    .venv/bin/python -m scripts.practice check matmul-tiled work/matmul_tiled.py
"""

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    # TODO: for each BK-wide step of K, load a BM x BK tile of a and a BK x BN
    # tile of b (masked on every edge), and accumulate tl.dot(a, b).
    tl.store(
        c_ptr + rows[:, None] * N + cols[None, :],
        acc,
        mask=(rows[:, None] < M) & (cols[None, :] < N),
    )


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    (M, K), N = a.shape, b.shape[1]
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
    matmul_kernel[grid](
        a,
        b,
        out,
        M,
        N,
        K,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        BM=16,
        BN=16,
        BK=16,
    )
