"""FlashAttention's forward pass in plain Python, tile by tile.

Shown on docs/kernels/attention/flash-attention-forward.md. A CPU model in
float64 on lists (no torch, no Triton): one query tile keeps a running max
`m`, a running sum `l` and an unnormalized output `acc` per query, walks
the keys a tile at a time, and never holds more than one tile of scores.
It follows kernels/attention/versions.py's `_attend` step for step, including the
scores in log2 units with the scale folded in. Its test compares it with
attention computed the plain way (the whole score matrix at once).
"""

from __future__ import annotations

# --8<-- [start:imports]
import math
import random

LOG2_E = math.log2(math.e)  # exp(x) = exp2(x * LOG2_E)
# --8<-- [end:imports]


# --8<-- [start:naive]
def attention_naive(q, k, v, causal=False):
    """softmax(q k^T / sqrt(D)) v with the whole S x S score matrix."""
    D, out = len(q[0]), []
    for i, qi in enumerate(q):
        keys = range(i + 1) if causal else range(len(k))
        s = [
            sum(a * b for a, b in zip(qi, k[j], strict=True)) / math.sqrt(D)
            for j in keys
        ]
        top = max(s)
        p = [math.exp(x - top) for x in s]
        total = sum(p)
        out.append(
            [
                sum(pj * v[j][d] for pj, j in zip(p, keys, strict=True)) / total
                for d in range(D)
            ]
        )
    return out
    # --8<-- [end:naive]


# --8<-- [start:tiled]
def attention_tiled(q, k, v, causal=False, block_m=4, block_n=2, rescale=True):
    """The same result, one block_m x block_n tile of scores at a time.
    (rescale=False is the broken variant of exercise 3.)"""
    S, D = len(q), len(q[0])
    qk_scale = LOG2_E / math.sqrt(D)  # folded: exp(x/sqrt(D)) = 2**(x*scale)
    out = []
    for m0 in range(0, S, block_m):  # one program per query tile
        rows = range(m0, min(m0 + block_m, S))
        m = {i: -math.inf for i in rows}  # running max, log2 units
        total = {i: 0.0 for i in rows}  # running sum of 2**(s - m)
        acc = {i: [0.0] * D for i in rows}  # unnormalized output
        stop = min(m0 + block_m, S) if causal else S
        for n0 in range(0, stop, block_n):  # one key tile per step
            for i in rows:
                keys = [
                    j for j in range(n0, min(n0 + block_n, S)) if not causal or j <= i
                ]
                if not keys:
                    continue
                s = [
                    sum(a * b for a, b in zip(q[i], k[j], strict=True)) * qk_scale
                    for j in keys
                ]
                m_new = max(m[i], *s)
                alpha = 2.0 ** (m[i] - m_new)  # rescales what was taken against m
                p = [2.0 ** (x - m_new) for x in s]
                total[i] = total[i] * alpha + sum(p)
                acc[i] = [
                    a * (alpha if rescale else 1.0)
                    + sum(pj * v[j][d] for pj, j in zip(p, keys, strict=True))
                    for d, a in enumerate(acc[i])
                ]
                m[i] = m_new
        out.extend([a / total[i] for a in acc[i]] for i in rows)  # divide once
    return out
    # --8<-- [end:tiled]


def random_qkv(S: int, D: int, seed: int = 0):
    rng = random.Random(seed)

    def matrix():
        return [[rng.gauss(0, 1) for _ in range(D)] for _ in range(S)]

    return matrix(), matrix(), matrix()


def largest_difference(S: int = 11, D: int = 4, causal: bool = False, seed=0):
    """Largest |tiled - naive| over every output value."""
    q, k, v = random_qkv(S, D, seed)
    tiled = attention_tiled(q, k, v, causal)
    naive = attention_naive(q, k, v, causal)
    return max(
        abs(a - b)
        for rt, rn in zip(tiled, naive, strict=True)
        for a, b in zip(rt, rn, strict=True)
    )


def facts() -> dict[str, str]:
    """The value the page states: the folded scale, log2(e) / sqrt(D)."""
    return {"scale": f"log2(e) / sqrt(D) = {LOG2_E:.6f} / sqrt(D)"}


if __name__ == "__main__":
    for causal in (False, True):
        diff = largest_difference(causal=causal)
        name = "causal" if causal else "full"
        print(f"S=11 D=4 {name}: tiled against naive, largest difference {diff:.1e}")
    print(f"folded scale: log2(e) / sqrt(D) = {LOG2_E:.6f} / sqrt(D)")
