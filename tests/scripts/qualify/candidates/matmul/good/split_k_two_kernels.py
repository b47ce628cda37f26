"""A split-K matmul: the first kernel sums each half of K into its own
float32 partial (a 2 x M x N scratch tensor), a second kernel adds the two
halves and rounds once to the result's dtype.

Unusual but correct: two launches and a scratch buffer of the candidate's
own; the sum is float32 throughout, in a different order than one loop's,
and no element is written by two programs.
Expected: qualified
"""

import torch
import triton
import triton.language as tl


@triton.jit
def partial_kernel(
    a_ptr, b_ptr, p_ptr, M, N, K, half, sam, sak, sbk, sbn,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
):  # fmt: skip
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    split = tl.program_id(2)  # 0: k < half; 1: the rest
    lo = split * half
    hi = tl.minimum(lo + half, K)
    ks = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(lo, hi, BK):
        kk = k0 + ks
        a = tl.load(
            a_ptr + rows[:, None] * sam + kk[None, :] * sak,
            mask=(rows[:, None] < M) & (kk[None, :] < hi),
            other=0.0,
        )
        b = tl.load(
            b_ptr + kk[:, None] * sbk + cols[None, :] * sbn,
            mask=(kk[:, None] < hi) & (cols[None, :] < N),
            other=0.0,
        )
        a, b = a.to(tl.float32), b.to(tl.float32)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    p_ptrs = p_ptr + split * M * N + rows[:, None] * N + cols[None, :]
    tl.store(p_ptrs, acc, mask=mask)


@triton.jit
def add_halves_kernel(p_ptr, c_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    total = tl.load(p_ptr + offs, mask=mask) + tl.load(p_ptr + numel + offs, mask=mask)
    tl.store(c_ptr + offs, total.to(c_ptr.dtype.element_ty), mask=mask)


def validate(a, b):
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            raise TypeError(f"{name} has dtype {t.dtype}; use a 32- or 16-bit float")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D, got shape {tuple(t.shape)}")
    if b.dtype != a.dtype:
        raise TypeError(f"b has dtype {b.dtype} but a has {a.dtype}")
    if b.shape[0] != a.shape[1]:
        raise ValueError(f"b has {b.shape[0]} rows but a has {a.shape[1]} columns")
    if b.device != a.device:
        raise ValueError(f"b is on {b.device} but a is on {a.device}")


def matmul(a, b):
    validate(a, b)
    (M, K), N = a.shape, b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M * N == 0:
        return c
    partials = torch.empty((2, M, N), dtype=torch.float32, device=a.device)
    half = (K + 1) // 2
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32), 2)
    partial_kernel[grid](
        a, b, partials, M, N, K, half,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1),
        BM=32, BN=32, BK=32,
    )  # fmt: skip
    add_halves_kernel[(triton.cdiv(M * N, 1024),)](partials, c, M * N, BLOCK=1024)
    return c
