"""Interview exercise: which accesses of a naive transpose coalesce
(docs/interview/coalescing-a-transpose.md). Sectors and banks are counted
with the lesson "Transpose and coalescing"'s models, snippets/lib/sectors.py
and snippets/lib/transpose_offsets.py."""

from kernels.devices import H200
from snippets.lib.sectors import SECTOR_BYTES, warp_sectors
from snippets.lib.transpose_offsets import WARP_LANES, conflict_degree, row_major

N = 4096  # a square float32 matrix
ITEMSIZE = 4
TILE = 32


# --8<-- [start:sectors]
def naive_transpose_warp(step: int = 0) -> dict[str, list[int]]:
    """Lane j reads input (step, j) of a row-major N x N matrix and writes
    output (j, step): byte addresses of one warp's read and write."""
    lanes = range(WARP_LANES)
    return {
        "read": [(step * N + j) * ITEMSIZE for j in lanes],
        "write": [(j * N + step) * ITEMSIZE for j in lanes],
    }


def sectors(byte_addresses: list[int]) -> int:
    """32-byte sectors one warp-wide access of float32 values touches."""
    return warp_sectors(byte_addresses, ITEMSIZE)


# --8<-- [end:sectors]


def used_fraction(byte_addresses: list[int]) -> float:
    return len(byte_addresses) * ITEMSIZE / (sectors(byte_addresses) * SECTOR_BYTES)


def column_conflicts(pad: int) -> int:
    """Passes for a warp reading one column of a TILE x TILE float32 tile."""
    tile = row_major(TILE, TILE, pad)
    return conflict_degree(tile, [(lane, 0) for lane in range(WARP_LANES)])


def facts() -> dict[str, str]:
    warp = naive_transpose_warp()
    moved = 2 * N * N * ITEMSIZE
    return {
        "given.n": f"{N:,}",
        "given.tile": f"{TILE} × {TILE}",
        "answer.read_sectors": str(sectors(warp["read"])),
        "answer.write_sectors": str(sectors(warp["write"])),
        "answer.read_used": f"{used_fraction(warp['read']):.0%}",
        "answer.write_used": f"{used_fraction(warp['write']):.1%}",
        "answer.bytes": f"{moved / 1e6:.0f} MB",
        "answer.floor": f"{moved / H200.hbm_bytes_per_s * 1e6:.1f} µs",
        "answer.conflicts": str(column_conflicts(0)),
        "answer.padded_conflicts": str(column_conflicts(1)),
    }


if __name__ == "__main__":
    for key, value in facts().items():
        if key.startswith("answer."):
            print(f"{key.removeprefix('answer.'):>16}: {value}")
