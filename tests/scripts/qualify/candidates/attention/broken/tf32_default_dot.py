"""Causal attention whose two float32 tl.dot calls are left at Triton's
default precision.

What is wrong: on a GPU both products run as TF32 (10 fraction bits per
operand): float32 scores and probabilities lose about 13 bits. The
interpreter multiplies exactly; the evaluator rounds the operands as a GPU
does, and only the float32 case (16-bit values are exact in TF32; the
probabilities' rounding stays inside a 16-bit bound) says TF32.
Expected check: values
Expected case: float32
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def tf32_default_dot_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, H, S, D, key_end, qk_scale,
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
    m = tl.full((BM,), -float("inf"), tl.float32)
    total = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, BD), tl.float32)
    # Causal: this tile's queries see keys up to its last row.
    stop = tl.minimum(tl.minimum((tile + 1) * BM, S), key_end)
    for n0 in range(0, stop, BN):
        keys = n0 + tl.arange(0, BN)
        kv_mask = (keys[:, None] < S) & d_in[None, :]
        k_at = k_ptr + b * skb + h * skh + keys[:, None] * sks + dims[None, :] * skd
        v_at = v_ptr + b * svb + h * svh + keys[:, None] * svs + dims[None, :] * svd
        k = tl.load(k_at, mask=kv_mask, other=0.0).to(tl.float32)
        v = tl.load(v_at, mask=kv_mask, other=0.0).to(tl.float32)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        keep = (keys[None, :] <= rows[:, None]) & (keys[None, :] < S)
        s = tl.where(keep, s, -float("inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp2(m - m_new)
        p = tl.exp2(s - m_new[:, None])
        total = total * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, v)
        m = m_new
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
    key_end = S
    grid = (triton.cdiv(S, 16), B * H)
    tf32_default_dot_kernel[grid](
        q, k, v, out, H, S, D, key_end, math.log2(math.e) / math.sqrt(D),
        *q.stride(), *k.stride(), *v.stride(),
        BM=16, BN=16, BD=max(16, triton.next_power_of_2(D)),
    )  # fmt: skip
    return out
