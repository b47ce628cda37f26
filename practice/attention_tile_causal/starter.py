"""One causal attention tile (practice exercise `attention-tile-causal`).

Fill in the scores, the mask and the softmax, then run
    .venv/bin/python -m scripts.practice check attention-tile-causal \
        work/attention_tile_causal.py
"""

import torch
import triton
import triton.language as tl


@triton.jit
def attention_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, S, D, scale, BS: tl.constexpr, BD: tl.constexpr
):
    pos = tl.arange(0, BS)
    dim = tl.arange(0, BD)
    io = (pos[:, None] < S) & (dim[None, :] < D)
    # TODO: load q, k, v; scores = q k^T * scale; mask what a query may not
    # see; softmax each row; store p v.
    pass


def causal_attention(q, k, v, out: torch.Tensor, scale: float) -> None:
    S, D = q.shape
    BS = max(16, triton.next_power_of_2(S))
    BD = max(16, triton.next_power_of_2(D))
    attention_kernel[(1,)](q, k, v, out, S, D, scale, BS=BS, BD=BD)
