"""Interview exercise: the floor of a memory-bound kernel
(docs/interview/memory-bound-floor.md). The method is the lesson "Napkin math:
bytes, FLOPs and the roofline"; the figures are the H200's in kernels/devices.
"""

from kernels.devices import H200

ROWS, COLS = 8192, 8192
ITEMSIZE = 2  # bf16
FLOPS_PER_ELEMENT = 2  # one add, one max


# --8<-- [start:floor]
def bytes_moved(numel: int, itemsize: int, passes: int) -> int:
    """Bytes that cross HBM when `passes` full tensors are read or written."""
    return passes * numel * itemsize


def floor_s(n_bytes: float, bytes_per_s: float = H200.hbm_bytes_per_s) -> float:
    """No kernel moves its bytes faster than the memory system delivers them."""
    return n_bytes / bytes_per_s


# relu(x + residual): fused, read x, read residual, write y: 3 passes.
# Unfused: add reads 2 and writes 1, relu reads 1 and writes 1: 5 passes.
FUSED_PASSES, UNFUSED_PASSES = 3, 5
# --8<-- [end:floor]


def worked(itemsize: int = ITEMSIZE) -> dict[str, float]:
    numel = ROWS * COLS
    fused = bytes_moved(numel, itemsize, FUSED_PASSES)
    unfused = bytes_moved(numel, itemsize, UNFUSED_PASSES)
    return {
        "fused_bytes": fused,
        "unfused_bytes": unfused,
        "fused_s": floor_s(fused),
        "unfused_s": floor_s(unfused),
        "ratio": unfused / fused,
        "intensity": FLOPS_PER_ELEMENT * numel / fused,
        "ridge": H200.bf16_dense_flop_per_s / H200.hbm_bytes_per_s,
    }


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} µs" if seconds < 1e-4 else f"{seconds * 1e6:.0f} µs"


def facts() -> dict[str, str]:
    w, fp32 = worked(), worked(itemsize=4)
    return {
        "given.shape": f"{ROWS:,} × {COLS:,}",
        "given.bandwidth": f"{H200.hbm_bytes_per_s / 1e12:.1f} TB/s",
        "given.l2": f"{H200.l2_bytes // 2**20} MiB",
        "answer.fused_bytes": f"{w['fused_bytes'] / 1e6:.0f} MB",
        "answer.unfused_bytes": f"{w['unfused_bytes'] / 1e6:.0f} MB",
        "answer.fused_floor": _us(w["fused_s"]),
        "answer.unfused_floor": _us(w["unfused_s"]),
        "answer.ratio": f"{w['ratio']:.2f}×",
        "answer.intensity": f"{w['intensity']:.2f} FLOP/B",
        "answer.ridge": f"{w['ridge']:.0f} FLOP/B",
        "answer.fp32_floor": _us(fp32["fused_s"]),
    }


if __name__ == "__main__":
    for key, value in facts().items():
        if key.startswith("answer."):
            print(f"{key.removeprefix('answer.'):>15}: {value}")
