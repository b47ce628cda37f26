"""Which rows the programs resident together write, in version 2's row
order and version 3's grouped order (docs/kernels/memory-bound/
transpose-and-coalescing.md).

A pencil model: it replays each version's program-id-to-tile arithmetic
(``snippets/lib/program_order.program_tile``: grouped matmul's order, which
``transpose_v3_kernel`` uses, and row order at a group of one) for the first
wave, the programs an H200 holds at once (``snippets/lib/occupancy``
applied to each build's registers, warps and shared memory in the sm_90a
artifact), and counts the output rows that wave writes and the bytes each
of them receives. It says nothing about DRAM pages, L2 or time: whether
longer stretches per row pay off is a device question.

Run it as a script to print the page's table.
"""

from __future__ import annotations

import math

from evidence.artifacts import build
from evidence.tables import markdown_table
from kernels.devices import H200
from snippets.lib.occupancy import residency
from snippets.lib.program_order import program_tile

#: The builds the model reads, by version: bf16, the benchmark's dtype.
BUILDS = {"v2": "tiled-bf16", "v3": "grouped-bf16"}
ITEMSIZE = 2
#: The HBM-bound benchmark shapes (kernels/transpose/describe.py, "full" profile).
SHAPES = ((16384, 16384), (8192, 32768))


def resident_programs(entry: dict, sm_count: int = H200.sm_count) -> int:
    """Programs of one build an H200 holds at once."""
    fit = residency(entry["registers"], entry["num_warps"], entry["shared_bytes"])
    return fit.blocks * sm_count


# --8<-- [start:first-wave]
def first_wave(M: int, N: int, BM: int, BN: int, group_m: int, programs: int,
               itemsize: int) -> dict[str, float]:  # fmt: skip
    """Output rows the first `programs` tiles write, and the bytes each
    receives on average. Tile (tm, tn) of x becomes rows tn*BN.. of the
    output, columns tm*BM..: BM elements of each of its BN output rows."""
    tiles_m, tiles_n = math.ceil(M / BM), math.ceil(N / BN)
    wave = min(programs, tiles_m * tiles_n)
    received: dict[int, int] = {}
    for pid in range(wave):
        tm, tn = program_tile(pid, tiles_m, tiles_n, group_m)
        width = min(BM, M - tm * BM) * itemsize
        for out_row in range(tn * BN, min((tn + 1) * BN, N)):
            received[out_row] = received.get(out_row, 0) + width
    return {
        "programs": wave,
        "rows": len(received),
        "bytes_per_row": sum(received.values()) / len(received),
    }
    # --8<-- [end:first-wave]


def wave_of(version: str, M: int, N: int) -> dict[str, float]:
    """The first wave of one version at one shape, from its build."""
    entry = build("transpose", BUILDS[version])
    c = entry["constexprs"]
    group_m = c.get("GROUP_M", 1)  # version 2: row order
    programs = resident_programs(entry)
    return first_wave(M, N, c["BLOCK_M"], c["BLOCK_N"], group_m, programs, ITEMSIZE)


def order_table() -> str:
    """Markdown: per shape and version, the first wave's output rows and
    the bytes each receives."""
    rows = []
    for M, N in SHAPES:
        for version in BUILDS:
            w = wave_of(version, M, N)
            rows.append([f"{M:,} × {N:,}", version, f"{w['programs']:,}",
                         f"{w['rows']:,}", f"{w['bytes_per_row']:,.0f}"])  # fmt: skip
    header = ["x (bf16)", "version", "programs at once", "output rows written",
              "bytes per row"]  # fmt: skip
    return markdown_table(header, rows, "llrrr")


# --8<-- [start:group-of-one]
def group_of_one() -> dict[str, float]:
    """Exercise: version 3's tiles and residency with GROUP_M = 1, i.e.
    row order, at the wide shape."""
    M, N = SHAPES[-1]
    entry = build("transpose", BUILDS["v3"])
    c = entry["constexprs"]
    programs = resident_programs(entry)
    return first_wave(M, N, c["BLOCK_M"], c["BLOCK_N"], 1, programs, ITEMSIZE)
    # --8<-- [end:group-of-one]


def facts() -> dict[str, str]:
    """Values the page states."""
    M, N = SHAPES[-1]
    v2, v3 = wave_of("v2", M, N), wave_of("v3", M, N)
    group = build("transpose", BUILDS["v3"])["constexprs"]["GROUP_M"]
    return {
        "shape": f"{M:,} × {N:,}",
        "group": str(group),
        "v2-bytes": f"{v2['bytes_per_row']:,.0f}",
        "v3-bytes": f"{v3['bytes_per_row']:,.0f}",
        "ratio": f"{v3['bytes_per_row'] / v2['bytes_per_row']:.1f}",
        "group-1-rows": f"{group_of_one()['rows']:,}",
        "group-1-bytes": f"{group_of_one()['bytes_per_row']:,.0f}",
        "v3-rows": f"{v3['rows']:,}",
    }


if __name__ == "__main__":
    print(order_table())
    print(facts())
