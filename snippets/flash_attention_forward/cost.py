"""FlashAttention's napkin math: FLOPs against bytes, with and without the
score matrix in memory.

Shown on docs/kernels/attention/flash-attention-forward.md. A CPU model:
it counts the FLOPs of the two matrix products and the bytes that must
cross device memory; it cannot see caches or time. The formulas match
kernels/attention/versions.py's `flops` and `bytes_moved` (a test checks it), and
the device figures come from kernels/devices.py.
"""

from __future__ import annotations

from evidence.tables import markdown_table
from kernels.devices import H200

#: The benchmark's main shape: batch, heads, sequence, head dimension, bf16.
WORKED = {"B": 4, "H": 16, "S": 4096, "D": 128, "itemsize": 2}


# --8<-- [start:flops]
def attention_flops(B: int, H: int, S: int, D: int, causal: bool) -> int:
    """Two products per (batch, head): scores = Q K^T (S x S x D) and
    out = P V (S x D x S), 2 FLOPs per multiply-add: 4 * B * H * S * S * D.
    Causal attention needs only the scores on and below the diagonal,
    S * (S + 1) / 2 of them: a little over half."""
    visible = S * (S + 1) // 2 if causal else S * S
    return 4 * B * H * D * visible


def flash_bytes(B: int, H: int, S: int, D: int, itemsize: int) -> int:
    """Read Q, K and V once, write the output once: the scores stay on chip."""
    return 4 * B * H * S * D * itemsize


def materialized_bytes(B: int, H: int, S: int, D: int, itemsize: int) -> int:
    """Eager attention adds the S x S matrices: the scores written by the
    first matmul and read by softmax, the probabilities written by softmax
    and read by the second matmul."""
    return flash_bytes(B, H, S, D, itemsize) + 4 * B * H * S * S * itemsize
    # --8<-- [end:flops]


# --8<-- [start:intensity]
def ridge_point() -> float:
    """FLOPs per byte where the H200's dense bf16 peak meets its HBM."""
    return H200.bf16_dense_flop_per_s / H200.hbm_bytes_per_s


def intensity(
    B: int,
    H: int,
    S: int,
    D: int,
    itemsize: int,
    causal: bool,
    materialized: bool = False,
) -> float:
    """FLOPs per byte of least traffic; about S / 2 for flash, bf16."""
    count = materialized_bytes if materialized else flash_bytes
    return attention_flops(B, H, S, D, causal) / count(B, H, S, D, itemsize)
    # --8<-- [end:intensity]


def crossing_length(D: int = 128, itemsize: int = 2, materialized: bool = False):
    """The shortest power-of-two S whose intensity passes the ridge, or
    None when none up to 2**20 does (the materialized scores never do)."""
    for power in range(4, 21):
        S = 2**power
        if intensity(1, 1, S, D, itemsize, False, materialized) >= ridge_point():
            return S
    return None


# --8<-- [start:exp-roof]
def exponentials(B: int, H: int, S: int, causal: bool) -> int:
    """One exp2 per score: the softmax of every score the kernel computes."""
    return B * H * (S * (S + 1) // 2 if causal else S * S)


def exp_seconds(B: int, H: int, S: int, causal: bool) -> float:
    """The second roof: the special-function unit's exp2 rate."""
    return exponentials(B, H, S, causal) / H200.exp2_per_s
    # --8<-- [end:exp-roof]


def serial_tflops() -> float:
    """The predict box's answer: the worked example's TFLOP/s if its
    exponentials run after its matrix products instead of under them."""
    B, H, S, D = (WORKED[k] for k in ("B", "H", "S", "D"))
    flops = attention_flops(B, H, S, D, False)
    seconds = flops / H200.bf16_dense_flop_per_s + exp_seconds(B, H, S, False)
    return round(flops / seconds / 1e12)


def facts() -> dict[str, str]:
    """Every value the page states about the worked example, formatted for
    prose; a page reads one as ``<!-- fact: <this file>:ridge -->``."""
    B, H, S, D, s = (WORKED[k] for k in ("B", "H", "S", "D", "itemsize"))
    full, causal = attention_flops(B, H, S, D, False), attention_flops(B, H, S, D, True)
    flash, eager = flash_bytes(B, H, S, D, s), materialized_bytes(B, H, S, D, s)
    matmul = full / H200.bf16_dense_flop_per_s
    exp = exp_seconds(B, H, S, False)
    return {
        "shape": f"B = {B}, H = {H}, S = {S:,}, D = {D}, bf16",
        "flops": f"{full / 1e12:.2f} TFLOP",
        "flops-causal": f"{causal / 1e12:.2f} TFLOP",
        "causal-share": f"{causal / full:.4f}",
        "flash-bytes": f"{flash / 2**20:,.0f} MiB",
        "scores-bytes": f"{(eager - flash) / 2**30:,.1f} GiB",
        "flash-intensity": f"{intensity(B, H, S, D, s, False):,.0f}",
        "materialized-intensity": f"{intensity(B, H, S, D, s, False, True):,.0f}",
        "ridge": f"{ridge_point():,.0f} FLOP/byte",
        "crossing": f"{crossing_length():,}",
        "flash-time": _ms(flash / H200.hbm_bytes_per_s),
        "compute-time": _ms(matmul),
        "scores-time": _ms((eager - flash) / H200.hbm_bytes_per_s),
        "materialized-time": _ms(eager / H200.hbm_bytes_per_s),
        "flops-per-exp": f"{full // exponentials(B, H, S, False):,}",
        "exponentials": f"{exponentials(B, H, S, False) / 1e9:.2f} billion",
        "exp-rate": f"{H200.exp2_per_s / 1e12:.1f}×10¹² per second",
        "exp-time": _ms(exp),
        "exp-share": f"{exp / matmul:.0%}",
        "matmul-over-exp": (
            f"{H200.bf16_dense_flop_per_s / H200.exp2_per_s:,.0f} times"
        ),
        **exercise_facts(),
    }


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


def length_table(D: int = 128, itemsize: int = 2) -> str:
    """Markdown: intensity with and without the scores in memory, per S."""
    rows = []
    for S in (512, 1024, 2048, 4096, 8192, 16384):
        flash = intensity(1, 1, S, D, itemsize, False)
        eager = intensity(1, 1, S, D, itemsize, False, True)
        side = "compute" if flash >= ridge_point() else "memory"
        rows.append((f"{S:,}", f"{flash:,.0f}", f"{eager:,.0f}", side))
    header = [
        "S",
        "FLOP/byte, scores on chip",
        "FLOP/byte, scores in memory",
        "flash side of the ridge",
    ]
    return markdown_table(header, rows, "rrrl")


# --8<-- [start:exercise]
def exercise(B=4, H=16, S=4096, D=128, itemsize=2) -> dict:
    """Bytes the S x S matrices add, and eager attention's intensity
    against the ridge point."""
    extra = materialized_bytes(B, H, S, D, itemsize) - flash_bytes(B, H, S, D, itemsize)
    eager = intensity(B, H, S, D, itemsize, False, materialized=True)
    return {"extra_bytes": extra, "intensity": eager, "ridge": ridge_point()}
    # --8<-- [end:exercise]


def exercise_facts() -> dict[str, str]:
    """Exercise 1's answer: the bytes the S x S matrices add and eager
    attention's intensity, formatted."""
    answer = exercise(**WORKED)
    extra = answer["extra_bytes"]
    return {
        "exercise.extra-bytes": f"{extra:,}",
        "exercise.extra-gib": f"{extra / 2**30:.1f} GiB",
        "exercise.times": f"{extra / flash_bytes(*WORKED.values()):.0f}",
        "exercise.intensity": f"{answer['intensity']:.1f}",
        "exercise.ridge": f"{answer['ridge']:.0f}",
    }


if __name__ == "__main__":
    for key in (
        "shape",
        "flops",
        "flops-causal",
        "flash-bytes",
        "scores-bytes",
        "flash-intensity",
        "materialized-intensity",
        "ridge",
        "crossing",
        "compute-time",
        "exp-time",
        "exp-share",
    ):
        print(f"{key}: {facts()[key]}")
