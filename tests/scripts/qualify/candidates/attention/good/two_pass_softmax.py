"""Causal attention in two passes over the keys: the first finds each
query's largest score, the second sums exp(score - max) and the weighted
values against that fixed maximum.

Unusual but correct: no running rescale (FlashAttention's online
softmax); the scores are computed twice, the maximum is exact before any
exponential, so large scores cannot overflow.
Expected: qualified
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def scores(q, k_ptr, keys, dims, S, D, sks, skd, qk_scale, rows):
    kv_mask = (keys[:, None] < S) & (dims[None, :] < D)
    k_at = k_ptr + keys[:, None] * sks + dims[None, :] * skd
    k = tl.load(k_at, mask=kv_mask, other=0.0).to(tl.float32)
    s = tl.dot(q, tl.trans(k), input_precision="ieee") * qk_scale
    keep = (keys[None, :] <= rows[:, None]) & (keys[None, :] < S)
    return tl.where(keep, s, -float("inf"))


@triton.jit
def two_pass_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, H, S, D, qk_scale,
    sqb, sqh, sqs, sqd, skb, skh, sks, skd, svb, svh, svs, svd,
    BM: tl.constexpr, BN: tl.constexpr, BD: tl.constexpr,
):  # fmt: skip
    tile, bh = tl.program_id(0), tl.program_id(1)
    b, h = bh // H, bh % H
    rows = tile * BM + tl.arange(0, BM)
    dims = tl.arange(0, BD)
    q_mask = (rows[:, None] < S) & (dims[None, :] < D)
    q_at = q_ptr + b * sqb + h * sqh + rows[:, None] * sqs + dims[None, :] * sqd
    q = tl.load(q_at, mask=q_mask, other=0.0).to(tl.float32)
    k_head, v_head = k_ptr + b * skb + h * skh, v_ptr + b * svb + h * svh
    stop = tl.minimum((tile + 1) * BM, S)
    top = tl.full((BM,), -float("inf"), tl.float32)
    for n0 in range(0, stop, BN):  # pass 1: the maximum
        keys = n0 + tl.arange(0, BN)
        s = scores(q, k_head, keys, dims, S, D, sks, skd, qk_scale, rows)
        top = tl.maximum(top, tl.max(s, axis=1))
    total = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, BD), tl.float32)
    for n0 in range(0, stop, BN):  # pass 2: the weights against it
        keys = n0 + tl.arange(0, BN)
        s = scores(q, k_head, keys, dims, S, D, sks, skd, qk_scale, rows)
        p = tl.exp2(s - top[:, None])
        total += tl.sum(p, axis=1)
        v_mask = (keys[:, None] < S) & (dims[None, :] < D)
        v_at = v_head + keys[:, None] * svs + dims[None, :] * svd
        v = tl.load(v_at, mask=v_mask, other=0.0).to(tl.float32)
        acc += tl.dot(p, v, input_precision="ieee")
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
    two_pass_kernel[grid](
        q, k, v, out, H, S, D, math.log2(math.e) / math.sqrt(D),
        *q.stride(), *k.stride(), *v.stride(),
        BM=16, BN=16, BD=max(16, triton.next_power_of_2(D)),
    )  # fmt: skip
    return out
