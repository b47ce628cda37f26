"""Attention's backward pass: store the probabilities P, or recompute them
from Q, K and one saved statistic per row, as FlashAttention does (lesson: A
backward kernel). Evidence kind: pencil model, from the H200's datasheet
figures in kernels/devices.py; attention_backward.py runs both options on a
CPU and tests/snippets/backward_kernel/ checks that they count the matrix
products this model counts.

Per head, with S queries and keys and head dimension D, the forward pass is
two products (S = Q K^T, O = P V), 2 * S * S * D FLOPs each. The backward
needs P again: dV = P^T dO, dP = dO V^T, dS = P * (dP - rowsum(dO * O)),
dQ = dS K, dK = dS^T Q. Four products, if P was kept; five, if it is
recomputed as exp(Q K^T * scale - L) from the row log-sum-exp L.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernels.devices import H200


@dataclass(frozen=True)
class Shape:
    batch: int = 1
    heads: int = 32
    seq: int = 4096
    head_dim: int = 128
    itemsize: int = 2  # bf16 Q, K, V, O, P and gradients

    @property
    def heads_total(self) -> int:
        return self.batch * self.heads


WORKED = Shape()
LAYERS = 32  # a 7B-class model's depth, for the memory held across layers
STAT_ITEMSIZE = 4  # L and rowsum(dO * O) are float32, one per row


# --8<-- [start:options]
def matrix_products(recompute: bool) -> dict[str, int]:
    """Products of S x S x D per head in each pass."""
    return {"forward": 2, "backward": 5 if recompute else 4}


def matmul_flops(shape: Shape, products: int) -> int:
    per_head = 2 * shape.seq * shape.seq * shape.head_dim
    return products * per_head * shape.heads_total


def held_bytes(shape: Shape, recompute: bool) -> int:
    """What the forward keeps for the backward beyond Q, K, V and O, which
    both options keep: P (S x S per head) or L (S per head)."""
    if recompute:
        return shape.heads_total * shape.seq * STAT_ITEMSIZE
    return shape.heads_total * shape.seq * shape.seq * shape.itemsize


def backward_bytes(shape: Shape, recompute: bool) -> int:
    """Least traffic of a fused backward: read Q, K, V, O, dO and the held
    tensor, write dQ, dK, dV, each once; plus the forward's write of the held
    tensor. (FlashAttention-2 adds dQ's accumulation across key blocks.)"""
    dense = 8 * shape.heads_total * shape.seq * shape.head_dim * shape.itemsize
    return dense + 2 * held_bytes(shape, recompute)


def extra_flops(shape: Shape) -> int:
    """What recomputation costs: the fifth product, Q K^T again."""
    return matmul_flops(shape, 1)


def flops_per_byte_saved(shape: Shape) -> float:
    """Recomputed FLOPs per byte of P not written and read back: about
    D / itemsize."""
    saved = backward_bytes(shape, False) - backward_bytes(shape, True)
    return extra_flops(shape) / saved
    # --8<-- [end:options]


# --8<-- [start:ridge]
def ridge_point(device=H200) -> float:
    """FLOPs the tensor cores do (dense bf16) in the time one byte of HBM
    traffic takes: above it a kernel is compute-bound."""
    return device.bf16_dense_flop_per_s / device.hbm_bytes_per_s


def break_even_head_dim(itemsize: int = 2, device=H200) -> float:
    """The head dimension at which recomputing costs as many FLOPs per byte
    saved as the ridge point: recomputation wins below it (exponentials
    aside)."""
    return ridge_point(device) * itemsize
    # --8<-- [end:ridge]


def gib(n: float) -> str:
    return f"{n / 2**30:,.2f} GiB" if n >= 2**30 else f"{n / 2**20:,.1f} MiB"


def options_table(shape: Shape = WORKED) -> str:
    """The two options for the worked shape, one row each."""
    from evidence.tables import markdown_table

    rows = []
    for recompute, name in ((False, "store P"), (True, "recompute P from L")):
        products = matrix_products(recompute)
        rows.append(
            [
                name,
                gib(held_bytes(shape, recompute)),
                gib(backward_bytes(shape, recompute)),
                str(products["backward"]),
                f"{matmul_flops(shape, products['backward']) / 1e9:,.0f} GFLOP",
            ]
        )
    head = ["option", "kept for the backward", "traffic", "backward products"]
    head.append("backward FLOPs")
    return markdown_table(head, rows)


def facts() -> dict[str, str]:
    """Every value the lesson states."""
    s = WORKED
    exp_count = s.heads_total * s.seq * s.seq  # one per recomputed score
    # Datasheet rates: a pencil estimate of each cost, not a measurement.
    exp_seconds = exp_count / H200.exp2_per_s
    product_seconds = extra_flops(s) / H200.bf16_dense_flop_per_s
    p_bytes = backward_bytes(s, False) - backward_bytes(s, True)
    p_seconds = p_bytes / H200.hbm_bytes_per_s
    return {
        "shape": (
            f"{s.heads} heads of {s.seq:,} queries and keys, head dimension "
            f"{s.head_dim}, bf16, one sequence"
        ),
        "p-held": gib(held_bytes(s, False)),
        "l-held": gib(held_bytes(s, True)),
        "layers": str(LAYERS),
        "p-model": gib(LAYERS * held_bytes(s, False)),
        "extra-gflop": f"{extra_flops(s) / 1e9:,.0f}",
        "extra-exp": f"{exp_count / 1e6:,.0f} million",
        "ratio": f"{flops_per_byte_saved(s):.0f}",
        "ridge": f"{ridge_point():.0f}",
        "break-even": f"{break_even_head_dim():.0f}",
        "break-even-fp32": f"{break_even_head_dim(4):.0f}",
        "backward-over-forward": (
            f"{matrix_products(True)['backward'] / matrix_products(True)['forward']}"
        ),
        "exp-share": f"{exp_seconds / product_seconds:.1f}",
        "recompute-over-traffic": f"{(exp_seconds + product_seconds) / p_seconds:.1f}",
    }


if __name__ == "__main__":
    print(options_table())
    for key in ("ratio", "ridge"):
        print(f"{key}: {facts()[key]}")
