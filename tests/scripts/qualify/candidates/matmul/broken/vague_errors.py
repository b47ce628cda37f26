"""A tiled matmul that refuses bad inputs with the right exception types
but messages that name no argument and show no value.

What is wrong: "bad input" does not say which of a and b is wrong, nor
what its dtype or shape is.
Expected check: error-message
"""

import torch
import triton
import triton.language as tl


@triton.jit
def vague_errors_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
):  # fmt: skip
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    out_mask = (rows[:, None] < M) & (cols[None, :] < N)
    c_ptrs = c_ptr + rows[:, None] * N + cols[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + ks
        a = tl.load(
            a_ptr + rows[:, None] * sam + kk[None, :] * sak,
            mask=(rows[:, None] < M) & (kk[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + kk[:, None] * sbk + cols[None, :] * sbn,
            mask=(kk[:, None] < K) & (cols[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=out_mask)


def validate(a, b):
    for t in (a, b):
        if not isinstance(t, torch.Tensor):
            raise TypeError("bad input")
        if t.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            raise TypeError("unsupported dtype")
        if t.dim() != 2:
            raise ValueError("bad shape")
    if b.dtype != a.dtype:
        raise TypeError("dtypes differ")
    if b.shape[0] != a.shape[1]:
        raise ValueError("inner dimensions differ")


def matmul(a, b):
    validate(a, b)
    (M, K), N = a.shape, b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M * N == 0:
        return c
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    vague_errors_kernel[grid](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
        BM=32, BN=32, BK=32,
    )  # fmt: skip
    return c
