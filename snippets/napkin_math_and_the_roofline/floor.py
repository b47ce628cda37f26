"""The time floor of an operation on an H200, and the bound that sets it
(docs/kernels/where-time-goes/napkin-math-and-the-roofline.md).

Standard library only: the page turns ``time_floor`` into an in-browser
calculator. The device figures come from ``kernels.devices``.
"""

from __future__ import annotations

import math

# --8<-- [start:model]
from kernels.devices import H200

#: Dense arithmetic peaks, FLOP/s. Sparsity (2:4) doubles the datasheet's
#: tensor-core figures and is set aside: dense kernels never see it.
PEAKS = {
    "bf16": H200.bf16_dense_flop_per_s,  # tensor cores
    "fp8": H200.fp8_dense_flop_per_s,  # tensor cores
    "fp32": H200.fp32_flop_per_s,  # CUDA cores, no tensor cores
}


def ridge(dtype: str) -> float:
    """FLOP per byte at which arithmetic and HBM traffic take equal time."""
    return PEAKS[dtype] / H200.hbm_bytes_per_s


def time_floor_s(flops: float, bytes_moved: float, dtype: str = "bf16") -> float:
    """The least time: neither the arithmetic nor the bytes can go faster
    than their peak, and at best the two fully overlap."""
    compute_s = flops / PEAKS[dtype]
    memory_s = bytes_moved / H200.hbm_bytes_per_s
    return max(compute_s, memory_s)


def bound(flops: float, bytes_moved: float, dtype: str = "bf16") -> str:
    """Which floor is higher: the one a kernel can at best reach."""
    if flops / PEAKS[dtype] > bytes_moved / H200.hbm_bytes_per_s:
        return "compute-bound"
    return "memory-bound"


# --8<-- [end:model]


# ---------------------------------------------------------------- formatting


def fmt_time(seconds: float) -> str:
    """'168 µs', '1.11 ms', '35 ns': three significant digits."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def fmt_num(value: float) -> str:
    """A count or ratio as a reader says it: '0.167', '206', '1.34×10⁸'."""
    if value == 0:
        return "0"
    if abs(value) >= 1e6:
        mantissa, exponent = f"{value:.2e}".split("e")
        power = str(int(exponent)).translate(_SUPERSCRIPT)
        return f"{float(mantissa):.3g}×10{power}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def fmt_bytes(n: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def time_floor(flops: float, bytes_moved: float, dtype: str = "bf16") -> str:
    """The H200 time floor of an operation and the bound that sets it."""
    if not math.isfinite(flops) or flops < 0:
        raise ValueError(f"flops must be a finite number >= 0, got {flops}")
    if not math.isfinite(bytes_moved) or bytes_moved < 0:
        raise ValueError(f"bytes_moved must be a finite number >= 0, got {bytes_moved}")
    if flops == 0 and bytes_moved == 0:
        raise ValueError("flops and bytes_moved are both 0: nothing to time")
    if dtype not in PEAKS:
        raise ValueError(f"dtype must be one of {', '.join(PEAKS)}, got {dtype!r}")
    floor = time_floor_s(flops, bytes_moved, dtype)
    if bytes_moved == 0:
        intensity = "no bytes"
    else:
        intensity = f"{fmt_num(flops / bytes_moved)} FLOP/B"
    return (
        f"{fmt_time(floor)}, {bound(flops, bytes_moved, dtype)} "
        f"({intensity}; the {dtype} ridge is {fmt_num(ridge(dtype))} FLOP/B)"
    )


if __name__ == "__main__":
    for dtype in PEAKS:
        print(f"{dtype:>5} ridge: {fmt_num(ridge(dtype))} FLOP/B")
    print(time_floor(2 * 1024**3, 3 * 2 * 1024**2))
