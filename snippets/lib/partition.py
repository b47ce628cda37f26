"""GEMM work partitioning: which program owns which tile and which K slice.

Shown on docs/kernels/work-mapping/layouts-strides-offsets.md and used by
docs/interview/partial-wave-gemm.md. A pencil model: data-parallel tiles
(in grouped order), split-K and Stream-K, each checked by counting who
computes every (tile, K iteration) and who writes every output tile.
"""

from __future__ import annotations

from collections import Counter

from evidence.tables import markdown_table
from snippets.lib.program_order import program_tile


# --8<-- [start:split-k]
def split_k_units(tiles: int, k_iters: int, splits: int) -> list[tuple[int, range]]:
    """(tile, K iterations) for each program of a split-K launch: every
    tile's K loop cut into `splits` nearly equal slices."""
    if not 1 <= splits <= k_iters:
        raise ValueError(f"splits must be in [1, {k_iters}], got {splits}")
    units = []
    for tile in range(tiles):
        for s in range(splits):
            units.append(
                (tile, range(s * k_iters // splits, (s + 1) * k_iters // splits))
            )
    return units
    # --8<-- [end:split-k]


# --8<-- [start:stream-k]
def stream_k_units(
    tiles: int, k_iters: int, workers: int
) -> list[list[tuple[int, range]]]:
    """Each worker's share of all tiles * k_iters iterations, taken as one
    contiguous run of the flattened (tile, k) sequence; a run that crosses
    a tile boundary is cut there."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    total = tiles * k_iters
    shares = []
    for w in range(workers):
        start, stop = w * total // workers, (w + 1) * total // workers
        pieces = []
        while start < stop:
            tile, k = divmod(start, k_iters)
            end = min(stop, (tile + 1) * k_iters)
            pieces.append((tile, range(k, k + end - start)))
            start = end
        shares.append(pieces)
    return shares


def tile_owners(shares: list[list[tuple[int, range]]], k_iters: int) -> dict[int, int]:
    """The worker that writes each tile: the one that computes its last K
    iteration; it adds the other contributors' partial sums first."""
    owners = {}
    for w, pieces in enumerate(shares):
        for tile, ks in pieces:
            if ks.stop == k_iters:
                owners[tile] = w
    return owners
    # --8<-- [end:stream-k]


def coverage(units: list[tuple[int, range]]) -> Counter:
    """How many times each (tile, k) is computed: 1 everywhere when the
    partition is correct."""
    return Counter((tile, k) for tile, ks in units for k in ks)


def contributors(units: list[tuple[int, range]]) -> Counter:
    """How many programs produce a partial sum of each tile."""
    return Counter(tile for tile, _ in units)


EXAMPLE = dict(tiles=6, k_iters=4, workers=4, splits=2)


def partition_table(tiles: int = 6, k_iters: int = 4, workers: int = 4) -> str:
    """Markdown: each Stream-K worker's pieces and the tiles it owns."""
    shares = stream_k_units(tiles, k_iters, workers)
    owners = tile_owners(shares, k_iters)
    header = ["worker", "pieces (tile: K iterations)", "iterations", "writes tiles"]
    rows = []
    for w, pieces in enumerate(shares):
        text = ", ".join(f"{t}: {ks.start}–{ks.stop - 1}" for t, ks in pieces)
        owned = sorted(t for t, o in owners.items() if o == w)
        rows.append((w, text, sum(len(ks) for _, ks in pieces),
                     ", ".join(map(str, owned)) or "none"))  # fmt: skip
    return markdown_table(header, rows, "rlrl")


def partition_summary(
    tiles: int = 6, k_iters: int = 4, workers: int = 4, splits: int = 2
) -> str:
    """One sentence comparing the three schemes on the example."""
    sk = [p for share in stream_k_units(tiles, k_iters, workers) for p in share]
    split = split_k_units(tiles, k_iters, splits)
    shared_tiles = sum(1 for n in contributors(sk).values() if n > 1)
    return (
        f"{tiles} tiles of {k_iters} K iterations on {workers} workers: "
        f"data-parallel gives {tiles} programs of {k_iters} iterations; "
        f"split-K by {splits} gives {len(split)} programs of "
        f"{k_iters // splits} and every tile has {splits} partial sums to add; "
        f"Stream-K gives each worker {tiles * k_iters // workers} iterations and "
        f"{shared_tiles} of the tiles are shared by more than one worker"
    )


def tile_story(
    tile: int = 1, tiles: int = 6, k_iters: int = 4, workers: int = 4
) -> str:
    """Exercise answer: who contributes to a tile and who writes it."""
    shares = stream_k_units(tiles, k_iters, workers)
    owner = tile_owners(shares, k_iters)[tile]
    parts = [(w, ks) for w, share in enumerate(shares) for t, ks in share if t == tile]
    text = ", ".join(
        f"worker {w} K iterations {ks.start}–{ks.stop - 1}" for w, ks in parts
    )
    others = [w for w, _ in parts if w != owner]
    wait = (
        f"it waits for the float32 partial tile{'s' if len(others) > 1 else ''} of "
        f"worker{'s' if len(others) > 1 else ''} {', '.join(map(str, others))}, "
        f"adds {'them' if len(others) > 1 else 'it'}, and stores the tile; no "
        "other worker writes it"
        if others
        else "no one else contributes, so it needs no fix-up"
    )
    return (
        f"Tile {tile}: {text}. Worker {owner} computes the last iteration "
        f"and owns it: {wait}"
    )


def grouped_order(tiles_m: int = 4, tiles_n: int = 3, group_m: int = 2) -> str:
    """Markdown: the tile each program id computes, plain and grouped."""
    header = ["program", "plain order (row, col)", f"grouped by {group_m} (row, col)"]
    rows = [
        (
            pid,
            program_tile(pid, tiles_m, tiles_n, 1),
            program_tile(pid, tiles_m, tiles_n, group_m),
        )
        for pid in range(tiles_m * tiles_n)
    ]
    return markdown_table(header, rows, "rll")


if __name__ == "__main__":
    print(partition_summary())
    print(partition_table())
    print(grouped_order())
