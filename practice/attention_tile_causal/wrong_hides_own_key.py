"""Wrong: the mask hides each query's own key (key < query).
Mistake: hides_own_key."""

import torch
import triton
import triton.language as tl


@triton.jit
def attention_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, S, D, scale, BS: tl.constexpr, BD: tl.constexpr
):
    pos = tl.arange(0, BS)  # query rows and key columns alike
    dim = tl.arange(0, BD)
    io = (pos[:, None] < S) & (dim[None, :] < D)
    q = tl.load(q_ptr + pos[:, None] * D + dim[None, :], mask=io, other=0.0)
    k = tl.load(k_ptr + pos[:, None] * D + dim[None, :], mask=io, other=0.0)
    v = tl.load(v_ptr + pos[:, None] * D + dim[None, :], mask=io, other=0.0)
    scores = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
    # A query sees its own key and every key before it; padding keys none.
    keep = (pos[None, :] < pos[:, None]) & (pos[None, :] < S)
    scores = tl.where(keep, scores, -float("inf"))
    p = tl.exp(scores - tl.max(scores, axis=1)[:, None])
    p = p / tl.sum(p, axis=1)[:, None]
    tl.store(
        o_ptr + pos[:, None] * D + dim[None, :],
        tl.dot(p, v, input_precision="ieee"),
        mask=io,
    )


def causal_attention(q, k, v, out: torch.Tensor, scale: float) -> None:
    S, D = q.shape
    BS = max(16, triton.next_power_of_2(S))  # tl.dot wants 16 or more
    BD = max(16, triton.next_power_of_2(D))
    attention_kernel[(1,)](q, k, v, out, S, D, scale, BS=BS, BD=BD)
