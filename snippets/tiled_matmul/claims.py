"""What coalescing and fusion change, counted with a pencil.

Shown on docs/kernels/matrix-multiplication/tiled-matmul.md, in the section
on what each optimization can claim. Tiling's count lives in traffic.py.
Run it as a script to print the page's numbers.
"""

# --8<-- [start:sectors]
# CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory": a
# warp's global loads are served in 32-byte sectors; a warp has 32 lanes.
SECTOR_BYTES = 32
WARP_LANES = 32


def warp_sectors(stride_elements: int, itemsize: int) -> int:
    """Sectors one warp's load touches when lane i reads element
    i * stride_elements of a row-major array starting on a sector."""
    if stride_elements < 1:
        raise ValueError(f"stride_elements must be >= 1, got {stride_elements}")
    if itemsize < 1:
        raise ValueError(f"itemsize must be >= 1, got {itemsize}")
    sectors = set()
    for lane in range(WARP_LANES):
        first = lane * stride_elements * itemsize
        last = first + itemsize - 1
        sectors.update(range(first // SECTOR_BYTES, last // SECTOR_BYTES + 1))
    return len(sectors)


def useful_bytes_per_warp(itemsize: int) -> int:
    """The values the warp asked for, however they were laid out."""
    return WARP_LANES * itemsize
    # --8<-- [end:sectors]


# --8<-- [start:fusion]
def unfused_epilogue_extra_bytes(M: int, N: int, itemsize: int) -> int:
    """Bytes an elementwise step after the matmul (bias, activation) adds
    when it runs as its own kernel: C is written out, then read back.
    Fused into the matmul's store, C never leaves the chip before its
    final value."""
    for name, value in (("M", M), ("N", N), ("itemsize", itemsize)):
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    return 2 * M * N * itemsize
    # --8<-- [end:fusion]


def coalescing_text(row_length: int, itemsize: int = 2) -> str:
    """A warp reading along a row, then down a column of a row-major
    matrix whose rows hold row_length elements, as one sentence."""
    along = warp_sectors(1, itemsize)
    down = warp_sectors(row_length, itemsize)
    useful = useful_bytes_per_warp(itemsize)
    return (
        f"A warp whose {WARP_LANES} lanes read consecutive "
        f"{itemsize}-byte values touches {along} sectors "
        f"({along * SECTOR_BYTES} bytes) for {useful} useful bytes; the same "
        f"warp reading down a column of a {row_length}-wide row-major matrix "
        f"touches {down} sectors ({down * SECTOR_BYTES} bytes) for the same "
        f"{useful} useful bytes."
    )


def sector_text() -> str:
    """'32-byte sectors'."""
    return f"{SECTOR_BYTES}-byte sectors"


def fusion_text(M: int, N: int, itemsize: int = 2) -> str:
    """The bytes fusing an elementwise epilogue removes, as prose."""
    extra = unfused_epilogue_extra_bytes(M, N, itemsize)
    return (
        f"For a {M} × {N} output of {itemsize}-byte elements, fusing it into "
        f"the matmul's store removes {extra:,} bytes "
        f"({extra / 1e6:.3g} MB) of traffic."
    )


if __name__ == "__main__":
    print(coalescing_text(4096))
    print(fusion_text(4096, 4096))
