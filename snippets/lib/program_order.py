"""Which strips of A and B the programs running at one time ask for.

Shown on docs/kernels/matrix-multiplication/tiled-matmul.md, beside the
kernel's `tiles` section. A pencil model of the program order: it replays
the kernel's pid -> tile arithmetic in plain Python and counts the distinct
strips of A and B the first wave of programs needs. It says nothing about
which of them L2 actually keeps; only a device measurement can.

Run it as a script to print the page's table.
"""

import math

from evidence.tables import markdown_table
from kernels.devices import H200

# The H200 is the H100 SXM5's GH100 configuration with HBM3e; its SM count
# and the source for it are in kernels/devices.py.
H200_SMS = H200.sm_count


# --8<-- [start:program-tile]
def program_tile(pid: int, tiles_m: int, tiles_n: int, group_m: int):
    """(tile row, tile column) of C that program `pid` computes.

    group_m = 1 is the plain row-by-row order. group_m > 1 cuts the tile
    rows into bands of group_m and walks each band column by column.
    """
    if not 0 <= pid < tiles_m * tiles_n:
        raise ValueError(f"pid must be in [0, {tiles_m * tiles_n}), got {pid}")
    if group_m < 1:
        raise ValueError(f"group_m must be >= 1, got {group_m}")
    programs_per_band = group_m * tiles_n
    band = pid // programs_per_band
    first_tile_m = band * group_m
    band_height = min(tiles_m - first_tile_m, group_m)  # the last may be short
    pos_in_band = pid % programs_per_band
    return first_tile_m + pos_in_band % band_height, pos_in_band // band_height


def first_wave_strips(
    M: int, N: int, BM: int, BN: int, group_m: int, programs: int
) -> tuple[int, int]:
    """Distinct strips of A (tile rows) and of B (tile columns) that the
    first `programs` programs load, if they run together."""
    tiles_m, tiles_n = math.ceil(M / BM), math.ceil(N / BN)
    wave = min(programs, tiles_m * tiles_n)
    tiles = [program_tile(p, tiles_m, tiles_n, group_m) for p in range(wave)]
    return len({m for m, _ in tiles}), len({n for _, n in tiles})
    # --8<-- [end:program-tile]


def first_wave_bytes(
    M: int, N: int, K: int, BM: int, BN: int, group_m: int,
    programs: int, itemsize: int,
) -> int:  # fmt: skip
    """Bytes of distinct operand strips the first wave needs. Ragged last
    strips are counted whole: an upper bound, fine for a comparison."""
    a_strips, b_strips = first_wave_strips(M, N, BM, BN, group_m, programs)
    return itemsize * K * (a_strips * BM + b_strips * BN)


WAVE_SHAPES = (4096, 8192)  # square M = N = K, bf16


def wave_table(BM: int, BN: int, group_m: int, programs: int = H200_SMS) -> str:
    """Markdown: distinct strips and bytes of the first wave, both orders."""
    header = ["M = N = K", "order", "A strips", "B strips", "distinct operand bytes"]
    rows = []
    for size in WAVE_SHAPES:
        for order, group in (("row by row", 1), (f"bands of {group_m}", group_m)):
            a, b = first_wave_strips(size, size, BM, BN, group, programs)
            nbytes = first_wave_bytes(size, size, size, BM, BN, group, programs, 2)
            rows.append((size, order, a, b, f"{nbytes / 1e6:.1f} MB"))
    return markdown_table(header, rows, "rlrrr")


def wave_reading(BM: int, BN: int, group_m: int, programs: int = H200_SMS) -> str:
    """One sentence per shape comparing the two orders, from the numbers."""
    sentences = []
    for size in WAVE_SHAPES:
        plain = first_wave_bytes(size, size, size, BM, BN, 1, programs, 2)
        grouped = first_wave_bytes(size, size, size, BM, BN, group_m, programs, 2)
        tiles_n = math.ceil(size / BN)
        _, b_plain = first_wave_strips(size, size, BM, BN, 1, programs)
        _, b_grouped = first_wave_strips(size, size, BM, BN, group_m, programs)
        if grouped < plain:
            verdict = (
                f"bands of {group_m} cut the first wave's distinct operand "
                f"bytes to {grouped / plain:.0%} of the row order's"
            )
        elif grouped == plain:
            verdict = "both orders need the same distinct operand bytes"
        elif b_plain == b_grouped == tiles_n:
            verdict = (
                f"a row of tiles is only {tiles_n} tiles long, so both orders "
                f"need every strip of B and bands of {group_m} only add rows "
                f"of A ({grouped / plain:.0%} of the row order's bytes)"
            )
        else:
            verdict = (
                f"bands of {group_m} need {grouped / plain:.0%} of the row "
                "order's distinct operand bytes"
            )
        sentences.append(f"At {size}³ {verdict}.")
    return " ".join(sentences)


if __name__ == "__main__":
    print(wave_table(128, 256, 8))
    print(wave_reading(128, 256, 8))
