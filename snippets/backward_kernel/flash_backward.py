"""Attention's backward with recomputation, as a Triton kernel in the shape
of FlashAttention-2's (lesson: A backward kernel). Evidence kind: Triton
interpreter (TRITON_INTERPRET=1 on a CPU): values, not speed; no artifact
is built from it.

One program per block of keys and head. It loads its K and V tiles once,
then walks every block of queries: recomputes P from Q, K and the saved
row log-sum-exp L, adds into its dK and dV tiles, and adds its share of dQ
with atomic adds, since every key block contributes to every query row.
rowsum(dO * O) is computed first, by torch in the launcher. float32, no
causal mask, head dimension a power of two of at least 16.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def flash_backward_kernel(
    q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dq_ptr, dk_ptr, dv_ptr,
    S, scale, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    start_n, head = tl.program_id(0) * BLOCK_N, tl.program_id(1)
    base = head * S * D  # each head's S x D tensors are contiguous
    offs_n = start_n + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, D)
    keys = offs_n < S
    kv_offs = base + offs_n[:, None] * D + offs_d[None, :]
    k = tl.load(k_ptr + kv_offs, mask=keys[:, None], other=0.0)
    v = tl.load(v_ptr + kv_offs, mask=keys[:, None], other=0.0)
    dk = tl.zeros((BLOCK_N, D), tl.float32)
    dv = tl.zeros((BLOCK_N, D), tl.float32)
    for start_m in range(0, S, BLOCK_M):
        # --8<-- [start:recompute]
        offs_m = start_m + tl.arange(0, BLOCK_M)
        rows = offs_m < S
        q_offs = base + offs_m[:, None] * D + offs_d[None, :]
        q = tl.load(q_ptr + q_offs, mask=rows[:, None], other=0.0)
        do = tl.load(do_ptr + q_offs, mask=rows[:, None], other=0.0)
        lse = tl.load(lse_ptr + head * S + offs_m, mask=rows, other=0.0)
        delta = tl.load(delta_ptr + head * S + offs_m, mask=rows, other=0.0)
        # P again, from Q, K and L: the fifth product and a tile of exps.
        p = tl.exp(tl.dot(q, tl.trans(k)) * scale - lse[:, None])
        p = tl.where(rows[:, None] & keys[None, :], p, 0.0)  # padding
        dv += tl.dot(tl.trans(p), do)
        dp = tl.dot(do, tl.trans(v))
        ds = p * (dp - delta[:, None])  # softmax's backward
        dk += tl.dot(tl.trans(ds), q) * scale
        dq = tl.dot(ds, k) * scale  # this key block's share of dQ
        tl.atomic_add(dq_ptr + q_offs, dq, mask=rows[:, None])
        # --8<-- [end:recompute]
    tl.store(dk_ptr + kv_offs, dk, mask=keys[:, None])
    tl.store(dv_ptr + kv_offs, dv, mask=keys[:, None])


def flash_backward(q, k, v, o, do, lse, block: int = 16):
    """dQ, dK, dV for (heads, S, D) float32 tensors, from O, dO and the row
    log-sum-exp L (heads, S) the forward saved."""
    heads, S, D = q.shape
    if D < 16 or D & (D - 1):
        raise ValueError(f"head dimension must be a power of two >= 16, got {D}")
    q, k, v, do = (t.contiguous() for t in (q, k, v, do))
    delta = (do * o).sum(dim=-1).contiguous()  # rowsum(dO * O), per row
    dq = torch.zeros_like(q)  # atomic adds accumulate into it
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    grid = (triton.cdiv(S, block), heads)
    flash_backward_kernel[grid](
        q, k, v, do, lse.contiguous(), delta, dq, dk, dv, S, D**-0.5,
        D=D, BLOCK_M=block, BLOCK_N=block,
    )  # fmt: skip
    return dq, dk, dv


def worst_gap(heads: int = 2, seq: int = 37, head_dim: int = 16) -> float:
    """Largest difference from autograd (float64 truth) over dQ, dK, dV."""
    gen = torch.Generator().manual_seed(1)
    q, k, v, do = (
        torch.randn(heads, seq, head_dim, dtype=torch.float64, generator=gen)
        for _ in range(4)
    )
    leaves = [t.clone().requires_grad_(True) for t in (q, k, v)]
    scores = leaves[0] @ leaves[1].transpose(1, 2) / head_dim**0.5
    o = torch.softmax(scores, dim=-1) @ leaves[2]
    truth = torch.autograd.grad(o, leaves, do)
    lse = torch.logsumexp(scores.detach(), dim=-1)
    args = (t.float() for t in (q, k, v, o.detach(), do, lse))
    ours = flash_backward(*args)
    pairs = zip(ours, truth, strict=True)
    return max((a.double() - b).abs().max().item() for a, b in pairs)


if __name__ == "__main__":
    print(f"largest gap from autograd: {worst_gap():.1e}")
