"""Transpose offsets: layouts, lane ownership and shared-memory banks.

Shown on docs/projects/work-mapping.md. A layout is a shape and a stride,
as in CuTe: the element at coordinate (i, j) lives at offset
i * stride[0] + j * stride[1]. A CPU model: it says which lane writes which
offset and which bank each access hits, not how fast any of it runs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from evidence.tables import markdown_table

WARP_LANES = 32
BANK_COUNT = 32  # shared memory: 32 banks, each 4 bytes wide
BANK_WIDTH_BYTES = 4


# --8<-- [start:layout]
@dataclass(frozen=True)
class Layout:
    """Maps a logical coordinate to an element offset in storage."""

    shape: tuple[int, ...]
    stride: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.shape) != len(self.stride):
            raise ValueError(
                f"shape {self.shape} and stride {self.stride} differ in rank"
            )
        if any(extent < 1 for extent in self.shape):
            raise ValueError(f"shape extents must be >= 1, got {self.shape}")
        if any(step < 0 for step in self.stride):
            raise ValueError(f"strides must be >= 0, got {self.stride}")

    def offset(self, coord: tuple[int, ...]) -> int:
        if len(coord) != len(self.shape):
            raise ValueError(
                f"coord {coord} has rank {len(coord)}, layout has "
                f"rank {len(self.shape)}"
            )
        for axis, index in enumerate(coord):
            extent = self.shape[axis]
            if not 0 <= index < extent:
                raise IndexError(
                    f"coord {coord}: index {index} on axis {axis} is "
                    f"outside 0..{extent - 1}"
                )
        return sum(i * s for i, s in zip(coord, self.stride, strict=True))

    def transposed(self) -> Layout:
        """A view: swap the axes, keep every element where it is."""
        return Layout(self.shape[::-1], self.stride[::-1])


def row_major(rows: int, cols: int, pad: int = 0) -> Layout:
    """Rows one after another; `pad` unused elements end each row."""
    return Layout((rows, cols), (cols + pad, 1))
    # --8<-- [end:layout]


def offset_grid(layout: Layout) -> list[list[int]]:
    """The offset of every logical coordinate of a 2-D layout."""
    rows, cols = layout.shape
    return [[layout.offset((i, j)) for j in range(cols)] for i in range(rows)]


# --8<-- [start:lane-writes]
def transpose_writes(
    rows: int, cols: int, out_layout: Layout
) -> list[tuple[int, int, int]]:
    """(step, lane, output offset) for a naive transpose of a row-major
    `rows x cols` input: lane j owns input column j and, at step i, reads
    input (i, j) and writes output (j, i) through `out_layout`."""
    writes = []
    for step in range(rows):
        for lane in range(cols):
            writes.append((step, lane, out_layout.offset((lane, step))))
    return writes


def mistaken_output_layout(rows: int, cols: int) -> Layout:
    """Deliberately broken: the output (cols x rows) indexed with the
    input's row stride, as when one tensor's strides are reused for
    another."""
    return Layout((cols, rows), (cols, 1))


def ownership_errors(
    writes: list[tuple[int, int, int]], size: int
) -> dict[str, list[int]]:
    """Offsets written twice, never written, or outside 0..size-1."""
    counts = Counter(offset for _, _, offset in writes)
    return {
        "written_twice": sorted(o for o, n in counts.items() if n > 1),
        "never_written": [o for o in range(size) if o not in counts],
        "out_of_bounds": sorted(o for o in counts if not 0 <= o < size),
    }
    # --8<-- [end:lane-writes]


# --8<-- [start:banks]
def bank_of(offset: int, itemsize: int = 4) -> int:
    """The shared-memory bank holding the element at `offset`."""
    return (offset * itemsize // BANK_WIDTH_BYTES) % BANK_COUNT


def column_read_banks(tile: Layout, column: int) -> list[int]:
    """Banks hit when lane i of a warp reads tile element (i, column)."""
    return [bank_of(tile.offset((lane, column))) for lane in range(WARP_LANES)]


def conflict_degree(tile: Layout, coords: list[tuple[int, int]]) -> int:
    """Shared-memory passes one warp-wide access needs: the largest
    number of distinct words that fall in a single bank."""
    words_per_bank: dict[int, set[int]] = {}
    for coord in coords:
        offset = tile.offset(coord)
        words_per_bank.setdefault(bank_of(offset), set()).add(offset)
    return max(len(words) for words in words_per_bank.values())
    # --8<-- [end:banks]


# Build-time helpers for the page: each returns Markdown.

EXAMPLE_ROWS, EXAMPLE_COLS = 3, 4


def _grid_table(grid: list[list[object]], row_label: str = "i") -> str:
    cols = len(grid[0])
    header = [f"{row_label} \\ j", *range(cols)]
    body = [[i, *row] for i, row in enumerate(grid)]
    return markdown_table(header, body, "l" + "r" * cols)


def _fmt_layout(layout: Layout) -> str:
    return f"`shape {layout.shape}, stride {layout.stride}`"


def layout_table(which: str) -> str:
    """Offsets of the 3 x 4 example ("input"), its transposed view
    ("view"), or a row-major copy of the transpose ("output")."""
    source = row_major(EXAMPLE_ROWS, EXAMPLE_COLS)
    layouts = {
        "input": source,
        "view": source.transposed(),
        "output": row_major(EXAMPLE_COLS, EXAMPLE_ROWS),
    }
    if which not in layouts:
        raise KeyError(f"which must be one of {sorted(layouts)}, got {which!r}")
    layout = layouts[which]
    return f"{_fmt_layout(layout)}\n\n{_grid_table(offset_grid(layout))}"


def lane_table(broken: bool = False) -> str:
    """Input offset each lane reads and output offset it writes at each
    step, and the ownership check's verdict on the writes."""
    rows, cols = EXAMPLE_ROWS, EXAMPLE_COLS
    source = row_major(rows, cols)
    layout = mistaken_output_layout(rows, cols) if broken else row_major(cols, rows)
    writes = transpose_writes(rows, cols, layout)
    header = ["step", "access", *(f"lane {j}" for j in range(cols))]
    body = []
    for step in range(rows):
        reads = [source.offset((step, lane)) for lane in range(cols)]
        written = [offset for s, _, offset in writes if s == step]
        for access, offsets in (("read", reads), ("write", written)):
            body.append([step, access, *offsets])
    errors = ownership_errors(writes, rows * cols)
    verdict = ", ".join(
        f"{name.replace('_', ' ')} `{found}`" for name, found in errors.items()
    )
    return (
        f"Output layout {_fmt_layout(layout)}.\n\n"
        + markdown_table(header, body, "rl" + "r" * cols)
        + f"\n\nOwnership check on the writes: {verdict}."
    )


def bank_facts() -> str:
    """The bank geometry the model assumes, for the page's prose."""
    return f"{BANK_COUNT} banks, each {BANK_WIDTH_BYTES} bytes wide"


def bank_text(pad: int) -> str:
    """Banks hit by a warp reading column 0 of a 32 x 32 float32 tile."""
    tile = row_major(WARP_LANES, WARP_LANES, pad=pad)
    column = [(lane, 0) for lane in range(WARP_LANES)]
    return (
        f"tile {_fmt_layout(tile)}: banks `{column_read_banks(tile, 0)}`, "
        f"passes needed: {conflict_degree(tile, column)}"
    )


def conflict_value(pad: int, read: str) -> str:
    """Passes for a warp reading one row or one column of the tile."""
    tile = row_major(WARP_LANES, WARP_LANES, pad=pad)
    if read == "row":
        coords = [(0, lane) for lane in range(WARP_LANES)]
    elif read == "column":
        coords = [(lane, 0) for lane in range(WARP_LANES)]
    else:
        raise KeyError(f"read must be 'row' or 'column', got {read!r}")
    return str(conflict_degree(tile, coords))


if __name__ == "__main__":
    for which in ("input", "view", "output"):
        print(layout_table(which), end="\n\n")
    print(lane_table(), end="\n\n")
    print(lane_table(broken=True), end="\n\n")
    print(bank_text(0))
    print(bank_text(1))
