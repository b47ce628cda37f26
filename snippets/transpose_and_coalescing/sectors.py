"""The worked example of sector counting, shown on
docs/kernels/memory-bound/transpose-and-coalescing.md.

The model, a pencil model, is the shared lesson library's
snippets/lib/sectors.py; this file holds the page's worked example and the
values its prose names.
"""

from snippets.lib.sectors import (
    SECTOR_BYTES,
    WARP,
    column_access,
    row_access,
    transpose_sectors,
    warp_sectors,
)

WORKED = {"M": 4096, "N": 4096, "itemsize": 4}


def facts() -> dict[str, str]:
    """The worked example's numbers, formatted for the prose, by name."""
    M, N, s = WORKED["M"], WORKED["N"], WORKED["itemsize"]
    naive = transpose_sectors(M, N, s, tiled=False)
    tiled = transpose_sectors(M, N, s, tiled=True)
    moved = SECTOR_BYTES
    naive_total = naive["read"] + naive["write"]
    tiled_total = tiled["read"] + tiled["write"]
    values = {
        "shape": f"{M} × {N} float32 matrix",
        "row-warp": f"{warp_sectors(row_access(s), s)}",
        "column-warp": f"{warp_sectors(column_access(M, s), s)}",
        "useful-warp": f"{WARP * s}",
        "useful": f"{naive['useful_bytes'] / 2**20:,.0f} MiB",
        "naive": f"{naive_total * moved / 2**20:,.0f} MiB",
        "tiled": f"{tiled_total * moved / 2**20:,.0f} MiB",
        "ratio": f"{naive_total / tiled_total:.3g}",
        "sector": f"{SECTOR_BYTES}-byte sectors",
    }
    return values


if __name__ == "__main__":
    s = WORKED["itemsize"]
    print(f"warp along a row:   {warp_sectors(row_access(s), s)} sectors")
    print(f"warp down a column: {warp_sectors(column_access(4096, s), s)} sectors")
    for tiled in (False, True):
        counts = transpose_sectors(WORKED["M"], WORKED["N"], s, tiled)
        name = "tiled" if tiled else "naive"
        print(f"{name}: {counts['read']:,} sectors read, {counts['write']:,} written")
