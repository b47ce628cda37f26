"""A tiled matmul that keeps its running sum in the input dtype,
rounding it after every 128-deep step of K.

What is wrong: a float16 sum of thousands of terms loses its low bits at
each rounding; a sum of at most 128 terms is rounded once, as it should
be, so only a long K shows it.
Expected check: values
Expected case: long-k
"""

import torch
import triton
import triton.language as tl


@triton.jit
def half_accumulator_kernel(
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
        step = tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision="ieee")
        acc = (acc + step).to(c_ptr.dtype.element_ty).to(tl.float32)
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=out_mask)


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
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    half_accumulator_kernel[grid](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
        BM=32, BN=32, BK=128,
    )  # fmt: skip
    return c
