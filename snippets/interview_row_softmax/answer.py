"""Interview exercise: write a row softmax (docs/interview/row-softmax.md),
graded by `python -m scripts.practice check row-softmax`. What the answer
states about overflow, padding and traffic is computed here."""

import math

import numpy as np

from kernels.devices import H200

GRADED_COLS = 100  # the grader's awkward row width
ROWS, COLS = 8192, 1024  # the napkin-math shape, bf16 in and out
LONG_COLS = 65536  # a row too wide for one block's registers


def next_power_of_2(n: int) -> int:
    return 1 << (n - 1).bit_length()


# --8<-- [start:overflow]
def exp_limit_float32() -> float:
    """The largest x whose exp(x) is finite in float32: ln(float32 max)."""
    return math.log(float(np.finfo(np.float32).max))


def overflows_without_max(x: float) -> bool:
    with np.errstate(over="ignore"):
        return bool(np.isinf(np.exp(np.float32(x))))


# --8<-- [end:overflow]


def padded_lanes(cols: int) -> int:
    """Lanes of a power-of-two block past the row's end: each adds exp(0 - max)
    to the sum if it loads 0 instead of -inf."""
    return next_power_of_2(cols) - cols


# Passes over the row that cross HBM, per element, for a row too wide for one
# block: three kernels (max, sum, normalise: 3 reads + 1 write), the online
# max-and-sum then normalise (2 reads + 1 write), one block per row (1 + 1).
PASSES = {"three kernels": 4, "online, two sweeps": 3, "one block per row": 2}


def floor_s(passes: int, rows: int = ROWS, cols: int = COLS, itemsize: int = 2):
    return passes * rows * cols * itemsize / H200.hbm_bytes_per_s


def facts() -> dict[str, str]:
    limit = exp_limit_float32()
    online = PASSES["three kernels"] / PASSES["online, two sweeps"]
    return {
        "given.cols": str(GRADED_COLS),
        "given.shape": f"{ROWS:,} × {COLS:,}",
        "given.long_cols": f"{LONG_COLS:,}",
        "answer.exp_limit": f"{limit:.2f}",
        "answer.block": str(next_power_of_2(GRADED_COLS)),
        "answer.padded": str(padded_lanes(GRADED_COLS)),
        "answer.one_block_bytes": f"{2 * ROWS * COLS * 2 / 1e6:.1f} MB",
        "answer.one_block_floor": f"{floor_s(2) * 1e6:.1f} µs",
        "answer.three_kernel_floor": f"{floor_s(4) * 1e6:.1f} µs",
        "answer.online_ratio": f"{online:.2f}×",
        "answer.input_mb": f"{ROWS * COLS * 2 / 1e6:.1f} MB",
        "given.l2": f"{H200.l2_bytes // 2**20} MiB",
        "answer.long_row_kib": f"{LONG_COLS * 4 // 1024} KiB",
    }


if __name__ == "__main__":
    print("exp(89) overflows in float32:", overflows_without_max(89.0))
    for key, value in facts().items():
        if key.startswith("answer."):
            print(f"{key.removeprefix('answer.'):>19}: {value}")
