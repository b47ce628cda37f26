"""Attention's backward pass on a CPU, both ways: from a stored P, and
recomputing P from Q, K and the row log-sum-exp L, as FlashAttention-2 does
(lesson: A backward kernel). Evidence kind: CPU model in float64; it checks
the algebra against autograd and counts the matrix products attention.py's
model counts. One head, no mask; says nothing about speed.
"""

from __future__ import annotations

import torch


class Products:
    """Counts the matrix products a pass runs, and their FLOPs."""

    def __init__(self):
        self.count, self.flops = 0, 0

    def mm(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        self.count += 1
        self.flops += 2 * a.shape[0] * a.shape[1] * b.shape[1]
        return a @ b


# --8<-- [start:forward]
def forward(q, k, v, products: Products | None = None):
    """O = softmax(Q K^T / sqrt(D)) V, with what either backward keeps: P
    (S x S) and L = log(sum(exp(scores))) per row (S values)."""
    products = products or Products()
    scores = products.mm(q, k.T) / q.shape[1] ** 0.5
    lse = torch.logsumexp(scores, dim=1)
    p = torch.exp(scores - lse[:, None])
    return products.mm(p, v), p, lse
    # --8<-- [end:forward]


# --8<-- [start:backward]
def backward(q, k, v, o, do, p=None, lse=None, products=None):
    """dQ, dK, dV from a stored P, or (p None) from P recomputed with L.
    rowsum(dO * O) is softmax's rowsum(dP * P): a sum over D columns, not S."""
    products = products or Products()
    scale = q.shape[1] ** -0.5
    if p is None:  # recompute: the fifth product, and S * S exponentials
        p = torch.exp(products.mm(q, k.T) * scale - lse[:, None])
    dv = products.mm(p.T, do)
    dp = products.mm(do, v.T)
    ds = p * (dp - (do * o).sum(dim=1, keepdim=True))  # softmax's backward
    dq = products.mm(ds, k) * scale
    dk = products.mm(ds.T, q) * scale
    return dq, dk, dv
    # --8<-- [end:backward]


def autograd_reference(q, k, v, do):
    """dQ, dK, dV by autograd through the plain formula."""
    q, k, v = (t.detach().clone().requires_grad_(True) for t in (q, k, v))
    o = torch.softmax(q @ k.T / q.shape[1] ** 0.5, dim=1) @ v
    return torch.autograd.grad(o, (q, k, v), do)


def worst_gaps(seq: int = 37, head_dim: int = 16, seed: int = 0) -> dict[str, float]:
    """Largest difference from autograd, per option, over dQ, dK and dV."""
    gen = torch.Generator().manual_seed(seed)
    q, k, v, do = (
        torch.randn(seq, head_dim, dtype=torch.float64, generator=gen) for _ in range(4)
    )
    truth = autograd_reference(q, k, v, do)
    o, p, lse = forward(q, k, v)
    gaps = {}
    for name, kept in (("stored", {"p": p}), ("recomputed", {"lse": lse})):
        grads = backward(q, k, v, o, do, **kept)
        pairs = zip(grads, truth, strict=True)
        gaps[name] = max((g - t).abs().max().item() for g, t in pairs)
    return gaps


if __name__ == "__main__":
    for name, gap in worst_gaps().items():
        print(f"P {name}: largest gap from autograd {gap:.1e}")
