"""Sectors a warp touches, and what a transpose's warps touch in all (lesson:
Transpose and coalescing, docs/kernels/memory-bound/transpose-and-coalescing.md;
the interview exercise "Coalescing a transpose" uses it too).

A pencil model. A warp's global accesses are served in 32-byte sectors (CUDA
C++ Best Practices Guide, "Coalesced Access to Global Memory"); the model
counts the distinct sectors a warp's addresses fall in. It counts
transactions, not time, and it cannot see L2 merging nearby warps' sectors.
"""

# --8<-- [start:sectors]
SECTOR_BYTES = 32
WARP = 32  # lanes


def warp_sectors(byte_addresses: list[int], itemsize: int) -> int:
    """Distinct 32-byte sectors that one warp's accesses touch."""
    touched = set()
    for address in byte_addresses:
        first, last = address, address + itemsize - 1
        touched.update(range(first // SECTOR_BYTES, last // SECTOR_BYTES + 1))
    return len(touched)


def row_access(itemsize: int) -> list[int]:
    """Lane i reads element i of a row: consecutive addresses."""
    return [lane * itemsize for lane in range(WARP)]


def column_access(row_elements: int, itemsize: int) -> list[int]:
    """Lane i reads element i of a column: one row apart."""
    return [lane * row_elements * itemsize for lane in range(WARP)]
    # --8<-- [end:sectors]


# --8<-- [start:transpose]
def transpose_sectors(M: int, N: int, itemsize: int, tiled: bool) -> dict:
    """Sectors read and written to transpose an M x N row-major matrix,
    when each warp accesses 32 consecutive elements of a row (reads, and
    the tiled version's writes) or of a column (the naive writes). Ragged
    edges are ignored: M and N are multiples of 32."""
    if M % WARP or N % WARP:
        raise ValueError(f"M and N must be multiples of {WARP}, got {M} x {N}")
    warps = M * N // WARP
    row = warp_sectors(row_access(itemsize), itemsize)
    column = warp_sectors(column_access(M, itemsize), itemsize)
    return {
        "useful_bytes": 2 * M * N * itemsize,  # read once, write once
        "read": warps * row,
        "write": warps * (row if tiled else column),
    }
    # --8<-- [end:transpose]
