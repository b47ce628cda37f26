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


#: The row length and output size the page's sentences use.
PAGE_ROW_LENGTH, PAGE_OUTPUT = 4096, (4096, 4096)


def facts(itemsize: int = 2) -> dict[str, str]:
    """Every value the page states about coalescing and fusion, by name."""
    along = warp_sectors(1, itemsize)
    down = warp_sectors(PAGE_ROW_LENGTH, itemsize)
    extra = unfused_epilogue_extra_bytes(*PAGE_OUTPUT, itemsize)
    return {
        "sector": f"{SECTOR_BYTES}-byte",
        "lanes": f"{WARP_LANES}",
        "itemsize": f"{itemsize}-byte",
        "useful": f"{useful_bytes_per_warp(itemsize)}",
        "along": f"{along} sectors ({along * SECTOR_BYTES} bytes)",
        "down": f"{down} sectors ({down * SECTOR_BYTES} bytes)",
        "row-length": f"{PAGE_ROW_LENGTH}",
        "fusion.output": f"{PAGE_OUTPUT[0]} × {PAGE_OUTPUT[1]}",
        "fusion.bytes": f"{extra:,} bytes ({extra / 1e6:.3g} MB)",
    }


if __name__ == "__main__":
    for key, value in facts().items():
        print(f"{key}: {value}")
