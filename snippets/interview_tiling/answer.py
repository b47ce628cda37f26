"""Interview exercise: what tile reaches the ridge
(docs/interview/tiling-and-intensity.md). The traffic model is the lesson
"Tiled matrix multiplication"'s: each output tile reads its strips of A and B
across all of K; the ridge is the H200's in kernels/devices."""

import math

from kernels.devices import H200

ITEMSIZE = 2  # bf16 operands
ACC_ITEMSIZE = 4  # float32 accumulator
REGISTER_FILE = 65536 * 4  # bytes of registers on one SM
SHARED_PER_SM = 228 * 1024
RECT = (128, 256)
GEMM = 8192  # M = N = K for the follow-up


# --8<-- [start:intensity]
def tile_intensity(tile_m: int, tile_n: int, itemsize: int = ITEMSIZE) -> float:
    """FLOPs per byte a tile requests: per step of depth k it reads
    (tile_m + tile_n) * k elements and does 2 * tile_m * tile_n * k FLOPs."""
    return 2 * tile_m * tile_n / ((tile_m + tile_n) * itemsize)


def ridge() -> float:
    return H200.bf16_dense_flop_per_s / H200.hbm_bytes_per_s


def square_tile_for_ridge() -> int:
    """The least square tile T whose T/2 FLOP/B reaches the ridge."""
    t = math.ceil(ridge() * ITEMSIZE / 1)  # T / 2 >= ridge for bf16
    while tile_intensity(t - 1, t - 1) >= ridge():
        t -= 1
    return t


# --8<-- [end:intensity]


def gemm_intensity(n: int) -> float:
    """The whole GEMM with A and B read once and C written once."""
    return 2 * n**3 / (3 * n * n * ITEMSIZE)


def facts() -> dict[str, str]:
    t = square_tile_for_ridge()
    acc = t * t * ACC_ITEMSIZE
    return {
        "given.rect": f"{RECT[0]} × {RECT[1]}",
        "given.gemm": f"{GEMM:,}",
        "answer.ridge": f"{ridge():.0f} FLOP/B",
        "answer.square_tile": str(t),
        "answer.accumulator": f"{acc / 1024:.0f} KiB",
        "answer.register_file": f"{REGISTER_FILE // 1024} KiB",
        "answer.shared": f"{SHARED_PER_SM // 1024} KiB",
        "answer.rect_intensity": f"{tile_intensity(*RECT):.1f} FLOP/B",
        "answer.rect_share": f"{tile_intensity(*RECT) / ridge():.0%}",
        "answer.gemm_intensity": f"{gemm_intensity(GEMM):,.0f} FLOP/B",
    }


if __name__ == "__main__":
    for key, value in facts().items():
        if key.startswith("answer."):
            print(f"{key.removeprefix('answer.'):>15}: {value}")
