"""Wrong: the K tail is not masked, so the last step reads past K.
Mistake: load_masked_past_end."""

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
    for k0 in range(0, K, BK):  # the K loop: one BM x BK by BK x BN step
        a = tl.load(
            a_ptr + rows[:, None] * sam + (k0 + ks)[None, :] * sak,
            mask=rows[:, None] < M,
            other=0.0,
        )
        b = tl.load(
            b_ptr + (k0 + ks)[:, None] * sbk + cols[None, :] * sbn,
            mask=cols[None, :] < N,
            other=0.0,
        )
        acc += tl.dot(a, b, input_precision="ieee")
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
