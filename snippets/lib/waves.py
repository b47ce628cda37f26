"""Scheduling waves: how many rounds a grid of blocks needs on a GPU.

Shown on docs/projects/work-mapping.md. A CPU model: it counts blocks and
resident slots, assuming every block takes the same time. It says nothing
about how long a block takes, so it makes no speed claim.
"""

from __future__ import annotations

from dataclasses import dataclass

from evidence.tables import markdown_table
from kernels.devices import H200


def _require_positive_int(name: str, value: object) -> int:
    # bool is an int subclass; True as a block count is always a mistake.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return value


# --8<-- [start:wave-count]
@dataclass(frozen=True)
class Waves:
    """A grid of equal blocks on a device with `sm_count` SMs, each of
    which holds `blocks_per_sm` blocks at once."""

    sm_count: int
    blocks_per_sm: int
    grid_size: int

    def __post_init__(self) -> None:
        for name in ("sm_count", "blocks_per_sm", "grid_size"):
            _require_positive_int(name, getattr(self, name))

    @property
    def slots(self) -> int:
        """Blocks resident at once across the whole device."""
        return self.sm_count * self.blocks_per_sm

    @property
    def count(self) -> int:
        """Rounds needed: a partly filled round still costs a round."""
        return -(-self.grid_size // self.slots)  # ceiling division

    @property
    def sizes(self) -> list[int]:
        """Blocks in each wave; only the last can be partial."""
        full, last = divmod(self.grid_size, self.slots)
        return [self.slots] * full + ([last] if last else [])

    @property
    def utilisation(self) -> float:
        """Busy slots over slots paid for, across all waves."""
        return self.grid_size / (self.count * self.slots)
        # --8<-- [end:wave-count]


# --8<-- [start:gemm-tiles]
def gemm_work_units(
    M: int,
    N: int,
    tile_m: int,
    tile_n: int,
    split_k: int = 1,
) -> int:
    """Blocks a tiled GEMM launches: one per output tile and K slice.

    Edge tiles are counted whole: a tile that is partly outside C still
    occupies a slot for a full wave.
    """
    sizes = dict(M=M, N=N, tile_m=tile_m, tile_n=tile_n, split_k=split_k)
    for name, value in sizes.items():
        _require_positive_int(name, value)
    tiles_m = -(-M // tile_m)
    tiles_n = -(-N // tile_n)
    return tiles_m * tiles_n * split_k
    # --8<-- [end:gemm-tiles]


# --8<-- [start:grid-size]
def blocks_needed(n_items: int, items_per_block: int) -> int:
    """Blocks so that every item has an owner: round up."""
    _require_positive_int("n_items", n_items)
    _require_positive_int("items_per_block", items_per_block)
    return -(-n_items // items_per_block)


def blocks_floor_divided(n_items: int, items_per_block: int) -> int:
    """Deliberately broken: rounding down drops the partial last block."""
    _require_positive_int("n_items", n_items)
    _require_positive_int("items_per_block", items_per_block)
    return n_items // items_per_block


def unowned_items(n_items: int, items_per_block: int, grid_size: int) -> range:
    """Items that no block of the grid covers (empty when the grid is
    large enough)."""
    covered = min(n_items, grid_size * items_per_block)
    return range(covered, n_items)
    # --8<-- [end:grid-size]


# Build-time helpers for the page: each returns Markdown.

GEMM_EXAMPLE = (2304, 2304)
GEMM_CONFIGS = ((128, 256, 1), (128, 128, 1), (64, 128, 1), (128, 128, 2))


def _percent(fraction: float) -> str:
    return f"{100 * fraction:.1f}%"


def fmt_wave(sm_count: int, blocks_per_sm: int, grid_size: int) -> str:
    """One sentence describing the schedule of a grid."""
    waves = Waves(sm_count, blocks_per_sm, grid_size)
    return (
        f"{grid_size} blocks on {sm_count} SMs x {blocks_per_sm} resident "
        f"= {waves.slots} slots: {waves.count} waves of sizes "
        f"`{waves.sizes}`, utilisation {_percent(waves.utilisation)}"
    )


def wave_table(sm_count: int, blocks_per_sm: int, grids: list[int]) -> str:
    """A caption, then a Markdown table: one row per grid size."""
    slots = Waves(sm_count, blocks_per_sm, 1).slots
    caption = (
        f"{sm_count} SMs x {blocks_per_sm} resident blocks per SM = {slots} slots."
    )
    header = [
        "grid size",
        "slots",
        "waves",
        "blocks per wave",
        "last wave",
        "utilisation",
    ]
    rows = []
    for grid in grids:
        waves = Waves(sm_count, blocks_per_sm, grid)
        rows.append(
            (
                grid,
                waves.slots,
                waves.count,
                f"`{waves.sizes}`",
                waves.sizes[-1],
                _percent(waves.utilisation),
            )
        )
    return caption + "\n\n" + markdown_table(header, rows, "rrrlrr", escape=False)


def h200_wave_table(blocks_per_sm: int) -> str:
    """wave_table on the H200's SM count, at grids around one and two full
    waves: just under, exactly full, one block over, and two full waves."""
    slots = H200.sm_count * blocks_per_sm
    grids = [slots - 64, slots, slots + 1, slots + 36, 2 * slots]
    return wave_table(H200.sm_count, blocks_per_sm, grids)


def gemm_wave_table(
    M: int = GEMM_EXAMPLE[0],
    N: int = GEMM_EXAMPLE[1],
    sm_count: int = H200.sm_count,
    configs: tuple[tuple[int, int, int], ...] = GEMM_CONFIGS,
) -> str:
    """Tile shape and split-K against waves, one block resident per SM."""
    header = [
        "tile (M x N)",
        "split-K",
        "tiles",
        "blocks",
        "waves",
        "blocks per wave",
        "utilisation",
    ]
    rows = []
    for tile_m, tile_n, split_k in configs:
        tiles = gemm_work_units(M, N, tile_m, tile_n)
        blocks = gemm_work_units(M, N, tile_m, tile_n, split_k)
        waves = Waves(sm_count, 1, blocks)
        rows.append(
            (
                f"{tile_m} x {tile_n}",
                split_k,
                tiles,
                blocks,
                waves.count,
                f"`{waves.sizes}`",
                _percent(waves.utilisation),
            )
        )
    return markdown_table(header, rows, "lrrrrlr", escape=False)


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "gemm-tile.128.256": fmt_gemm_tile(128, 256),
        "gemm-tile.256.128": fmt_gemm_tile(256, 128),
    }


def facts(config: int = 0) -> dict[str, str]:
    """The GEMM example's figures for the pages' sentences, by name
    (`<!-- fact: snippets/lib/waves.py:blocks -->`), for its first config."""
    M, N = GEMM_EXAMPLE
    tile_m, tile_n, split_k = GEMM_CONFIGS[config]
    blocks = gemm_work_units(M, N, tile_m, tile_n, split_k)
    waves = Waves(H200.sm_count, 1, blocks)
    values = {
        **page_facts(),
        "M": M,
        "N": N,
        "sm_count": H200.sm_count,
        "tile": f"{tile_m} x {tile_n}",
        "split_k": split_k,
        "blocks": blocks,
        "waves": waves.count,
        "last_wave": waves.sizes[-1],
        "idle_in_last_wave": waves.slots - waves.sizes[-1],
        "utilisation": _percent(waves.utilisation),
    }
    return {name: str(value) for name, value in values.items()}


def fmt_gemm_tile(tile_m: int, tile_n: int, split_k: int = 1) -> str:
    """One row of the GEMM table, as a sentence, for any tile: the figures
    an exercise answer quotes."""
    M, N = GEMM_EXAMPLE
    blocks = gemm_work_units(M, N, tile_m, tile_n, split_k)
    waves = Waves(H200.sm_count, 1, blocks)
    return (
        f"{tile_m} x {tile_n}, split-K {split_k}: {blocks} blocks in "
        f"{waves.count} waves of `{waves.sizes}`, "
        f"{_percent(waves.utilisation)} utilisation"
    )


def grid_ownership_table(n_items: int, items_per_block: int) -> str:
    """A caption, then the rounded-up grid against the floor-divided one."""
    header = ["grid from", "blocks", "items covered", "items with no owner"]
    rows = []
    for label, grid in (
        ("`blocks_needed` (round up)", blocks_needed(n_items, items_per_block)),
        (
            "`blocks_floor_divided` (broken)",
            blocks_floor_divided(n_items, items_per_block),
        ),
    ):
        missing = unowned_items(n_items, items_per_block, grid)
        shown = f"{missing.start} to {missing.stop - 1}" if missing else "none"
        covered = min(n_items, grid * items_per_block)
        rows.append((label, grid, covered, shown))
    return f"{n_items} items, {items_per_block} items per block:\n\n" + markdown_table(
        header, rows, "lrrl", escape=False
    )


if __name__ == "__main__":
    print(grid_ownership_table(1000, 128))
    print(fmt_wave(H200.sm_count, 2, 300))
    print(gemm_wave_table())
