"""Causal attention with no tl.dot: each block of 16 queries forms its
scores as a 16 x 16 x D block of elementwise products of q and k rows
summed over D, and its output as probabilities times value rows summed
over the keys, with FlashAttention's running maximum and rescale.

Unusual but correct: every product is an exact float32 multiply (there is
no dot precision to choose), summed in another order than a dot's.
Expected: qualified
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def broadcast_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, H, S, D, qk_scale,
    sqb, sqh, sqs, sqd, skb, skh, sks, skd, svb, svh, svs, svd,
    BM: tl.constexpr, BN: tl.constexpr, BD: tl.constexpr,
):  # fmt: skip
    tile, bh = tl.program_id(0), tl.program_id(1)
    b, h = bh // H, bh % H
    rows = tile * BM + tl.arange(0, BM)
    dims = tl.arange(0, BD)
    d_in = dims < D
    q_mask = (rows[:, None] < S) & d_in[None, :]
    q_at = q_ptr + b * sqb + h * sqh + rows[:, None] * sqs + dims[None, :] * sqd
    q = tl.load(q_at, mask=q_mask, other=0.0).to(tl.float32)
    top = tl.full((BM,), -float("inf"), tl.float32)
    total = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, BD), tl.float32)
    for n0 in range(0, tl.minimum((tile + 1) * BM, S), BN):
        keys = n0 + tl.arange(0, BN)
        kv_mask = (keys[:, None] < S) & d_in[None, :]
        k_at = k_ptr + b * skb + h * skh + keys[:, None] * sks + dims[None, :] * skd
        v_at = v_ptr + b * svb + h * svh + keys[:, None] * svs + dims[None, :] * svd
        k = tl.load(k_at, mask=kv_mask, other=0.0).to(tl.float32)
        v = tl.load(v_at, mask=kv_mask, other=0.0).to(tl.float32)
        s = tl.sum(q[:, None, :] * k[None, :, :], axis=2) * qk_scale
        keep = (keys[None, :] <= rows[:, None]) & (keys[None, :] < S)
        s = tl.where(keep, s, -float("inf"))
        new_top = tl.maximum(top, tl.max(s, axis=1))
        alpha = tl.exp2(top - new_top)
        p = tl.exp2(s - new_top[:, None])
        total = total * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.sum(p[:, :, None] * v[None, :, :], axis=1)
        top = new_top
    out = acc / total[:, None]
    o_at = o_ptr + bh * S * D + rows[:, None] * D + dims[None, :]
    tl.store(o_at, out.to(o_ptr.dtype.element_ty), mask=q_mask)


def validate(q, k, v):
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            raise TypeError(f"{name} has dtype {t.dtype}; use a 32- or 16-bit float")
    if q.dim() != 4:
        raise ValueError(f"q must be (B, H, S, D), got shape {tuple(q.shape)}")
    for name, t in (("k", k), ("v", v)):
        if t.shape != q.shape or t.dtype != q.dtype or t.device != q.device:
            raise ValueError(
                f"{name} is {tuple(t.shape)} {t.dtype} on {t.device}; q is "
                f"{tuple(q.shape)} {q.dtype} on {q.device}"
            )
    if not 16 <= q.shape[-1] <= 128:
        raise ValueError(f"q has head dimension {q.shape[-1]}; use 16 to 128")


def causal_attention(q, k, v):
    validate(q, k, v)
    B, H, S, D = q.shape
    out = torch.empty((B, H, S, D), dtype=q.dtype, device=q.device)
    if out.numel() == 0:
        return out
    grid = (triton.cdiv(S, 16), B * H)
    broadcast_kernel[grid](
        q, k, v, out, H, S, D, math.log2(math.e) / math.sqrt(D),
        *q.stride(), *k.stride(), *v.stride(),
        BM=16, BN=16, BD=max(16, triton.next_power_of_2(D)),
    )  # fmt: skip
    return out
