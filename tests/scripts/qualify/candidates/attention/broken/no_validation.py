"""Causal attention that checks nothing: any tensor of rank 3 or more is
taken as (..., H, S, D), any dtype, any head dimension.

What is wrong: a list fails with an AttributeError instead of a
TypeError; float64, a k of another shape, a 3-D q and a head dimension of
8 return a result instead of being refused.
Expected check: error-type
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def no_validation_kernel(
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
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * qk_scale
        keep = (keys[None, :] <= rows[:, None]) & (keys[None, :] < S)
        s = tl.where(keep, s, -float("inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp2(m - m_new)
        p = tl.exp2(s - m_new[:, None])
        total = total * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m = m_new
    out = acc / total[:, None]
    o_at = o_ptr + bh * S * D + rows[:, None] * D + dims[None, :]
    tl.store(o_at, out.to(o_ptr.dtype.element_ty), mask=q_mask)


def causal_attention(q, k, v):
    if q.dim() == 3:
        q, k, v = (t.unsqueeze(0) for t in (q, k, v))
    B, H, S, D = q.shape
    out = torch.empty((B, H, S, D), dtype=q.dtype, device=q.device)
    if out.numel() == 0:
        return out
    key_end = S
    grid = (triton.cdiv(S, 16), B * H)
    no_validation_kernel[grid](
        q, k, v, out, H, S, D, key_end, math.log2(math.e) / math.sqrt(D),
        *q.stride(), *k.stride(), *v.stride(),
        BM=16, BN=16, BD=max(16, triton.next_power_of_2(D)),
    )  # fmt: skip
    return out
