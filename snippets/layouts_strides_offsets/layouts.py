"""Layouts as functions: shape:stride, coordinate to offset, composition.

Shown on docs/kernels/work-mapping/layouts-strides-offsets.md. A pencil
model in the notation of CuTe (NVIDIA CUTLASS, "CuTe Layouts" and "CuTe
Layout Algebra"): a layout maps a coordinate, or a 1-D index read with the
first mode fastest, to an offset. Flat layouts only (no nested modes), which
is enough for every mapping on the page. It says where things are, never
how fast they move.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from evidence.tables import markdown_table


def _ints(name: str, values: tuple, low: int) -> tuple[int, ...]:
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise ValueError(f"{name} must hold ints >= {low}, got {values!r}")
    return tuple(values)


# --8<-- [start:layout]
@dataclass(frozen=True)
class Layout:
    """shape:stride. Coordinate (c0, c1, ...) -> sum(c_i * stride_i)."""

    shape: tuple[int, ...]
    stride: tuple[int, ...]

    def __post_init__(self) -> None:
        _ints("shape", self.shape, 1)
        _ints("stride", self.stride, 0)
        if len(self.shape) != len(self.stride):
            raise ValueError(
                f"shape {self.shape} and stride {self.stride} differ in rank"
            )

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def coord(self, index: int) -> tuple[int, ...]:
        """The coordinate of a 1-D index, first mode fastest (as CuTe)."""
        if not 0 <= index < self.size:
            raise ValueError(f"index must be in [0, {self.size}), got {index}")
        out = []
        for s in self.shape:
            index, c = divmod(index, s)
            out.append(c)
        return tuple(out)

    def __call__(self, *coord: int) -> int:
        """Offset of a coordinate, or of a 1-D index when given one int."""
        if len(coord) == 1 and len(self.shape) > 1:
            coord = self.coord(coord[0])
        if len(coord) != len(self.shape):
            raise ValueError(f"coord has rank {len(coord)}, layout {len(self.shape)}")
        for c, s in zip(coord, self.shape, strict=False):
            if not 0 <= c < s:
                raise ValueError(f"coord {coord} is outside shape {self.shape}")
        return sum(c * d for c, d in zip(coord, self.stride, strict=False))

    def __str__(self) -> str:
        def tup(t):
            return f"({','.join(map(str, t))})" if len(t) > 1 else str(t[0])

        return f"{tup(self.shape)}:{tup(self.stride)}"
        # --8<-- [end:layout]


# --8<-- [start:trace]
def trace(layout: Layout, coord: tuple[int, ...]) -> str:
    """The arithmetic from one coordinate to its offset, written out."""
    terms = [f"{c}*{d}" for c, d in zip(coord, layout.stride, strict=False)]
    return f"{layout} at {coord}: " + " + ".join(terms) + f" = {layout(*coord)}"


def transposed_view(layout: Layout) -> Layout:
    """The same storage read with the modes swapped: no element moves."""
    return Layout(layout.shape[::-1], layout.stride[::-1])
    # --8<-- [end:trace]


# --8<-- [start:compose]
def compose_mode(a: Layout, n: int, r: int) -> Layout:
    """a composed with the one-mode layout n:r. Skip the first r indices of
    a's domain (divide a's shape by r), then keep n of them."""
    if r == 0:
        return Layout((n,), (0,))
    shape, stride = [], []
    modes = list(zip(a.shape, a.stride, strict=False))
    while modes and r > 1:  # divide: drop whole modes, then split one
        s, d = modes[0]
        if r % s == 0:
            r //= s
            modes.pop(0)
        elif s % r == 0:
            modes[0] = (s // r, d * r)
            r = 1
        else:
            raise ValueError(f"stride {r} does not divide shape {a.shape}")
    if r > 1:
        raise ValueError(f"stride {r} runs past the end of {a}")
    for s, d in modes:  # keep n: take whole modes, then part of one
        if n == 1:
            break
        if n % s == 0:
            shape.append(s), stride.append(d)
            n //= s
        elif s % n == 0:
            shape.append(n), stride.append(d)
            n = 1
        else:
            raise ValueError(f"size {n} does not fit the modes of {a}")
    if n > 1:
        raise ValueError(f"size runs past the end of {a}")
    return Layout(tuple(shape) or (1,), tuple(stride) or (0,))


def compose(a: Layout, b: Layout) -> list[Layout]:
    """a o b, one flat layout per mode of b (composition distributes over
    b's modes): (a o b)(i) = a(b(i))."""
    return [compose_mode(a, n, r) for n, r in zip(b.shape, b.stride, strict=False)]
    # --8<-- [end:compose]


def by_composition(a: Layout, b: Layout) -> str:
    parts = compose(a, b)
    return "(" + ", ".join(str(p) for p in parts) + ")"


# A 4 x 8 matrix, stored row-major; the CuTe example uses a column-major
# index, so the composition below makes the switch explicit.
MATRIX = Layout((4, 8), (8, 1))
COORD = (2, 5)


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "lane.aligned": fmt_lane("aligned"),
        "lane.unaligned": fmt_lane("unaligned"),
    }


def facts() -> dict[str, str]:
    """Figures for the page's sentences, by name."""
    view = transposed_view(MATRIX)
    values = {
        **page_facts(),
        "matrix": f"`{MATRIX}`",
        "coord": str(COORD),
        "trace": f"`{trace(MATRIX, COORD)}`",
        "view": f"`{view}`",
        "view-trace": f"`{trace(view, COORD[::-1])}`",
        "col-major": f"`{Layout((4, 8), (1, 4))}`",
        "broadcast": f"`{Layout(MATRIX.shape, (0, 1))}`",
    }
    return values


def offset_grid_table(layout: Layout = MATRIX) -> str:
    """Markdown: the offset of every coordinate of a 2-D layout."""
    rows_n, cols_n = layout.shape
    header = ["", *[f"j={j}" for j in range(cols_n)]]
    rows = [(f"i={i}", *[layout(i, j) for j in range(cols_n)]) for i in range(rows_n)]
    return markdown_table(header, rows, "r" * (cols_n + 1))


def composition_example() -> str:
    """The transpose as a composition: the column-major index of the 4 x 8
    storage composed with (8,4):(4,1), which walks it by rows of the
    transposed matrix."""
    storage = Layout((4, 8), (8, 1))
    walk = Layout((8, 4), (4, 1))
    return f"`{storage}` ∘ `{walk}` = `{by_composition(storage, walk)}`"


# --8<-- [start:thread-layout]
EXCERPTS = Path(__file__).resolve().parents[1] / (
    "the_kernel_that_actually_runs/ir_excerpts.json"
)


def blocked_fields(line: str) -> dict[str, int]:
    """sizePerThread, threadsPerWarp, warpsPerCTA of a 1-D TTGIR
    #ttg.blocked layout line."""
    fields = {}
    for key in ("sizePerThread", "threadsPerWarp", "warpsPerCTA"):
        start = line.index(key + " = [") + len(key) + 4
        fields[key] = int(line[start : line.index("]", start)])
    return fields


def thread_value_layout(line: str, elements: int) -> Layout:
    """The blocked layout as (value, lane, warp, repeat) -> element index.
    A block of threads covers size * 32 * warps elements at once and
    repeats until the tensor is covered."""
    f = blocked_fields(line)
    size, lanes, warps = f["sizePerThread"], f["threadsPerWarp"], f["warpsPerCTA"]
    once = size * lanes * warps
    if elements % once:
        raise ValueError(f"elements must be a multiple of {once}, got {elements}")
    return Layout((size, lanes, warps, elements // once), (1, size, size * lanes, once))


def loads_per_input(layout: Layout) -> int:
    """Load instructions per thread per input: one per repeat, each as wide
    as the consecutive values the thread holds."""
    return layout.shape[3]
    # --8<-- [end:thread-layout]


def ttgir_layout(which: str, elements: int = 1024) -> Layout:
    line = json.loads(EXCERPTS.read_text(encoding="utf-8"))["builds"][which]["ttgir"]
    return thread_value_layout(line, elements)


def fmt_lane(which: str, lane: int = 5) -> str:
    """What one lane of warp 0 holds, read off the TTGIR layout."""
    tv = ttgir_layout(which)
    size, _, _, reps = tv.shape
    groups = [[tv(v, lane, 0, r) for v in range(size)] for r in range(reps)]
    shown = "; ".join(f"{g[0]}" if len(g) == 1 else f"{g[0]}–{g[-1]}" for g in groups)
    return (
        f"`{tv}`: lane {lane} of warp 0 holds elements {shown} "
        f"({reps} load{'s' if reps > 1 else ''} of {size * 4} bytes per input)"
    )


# --8<-- [start:offset-figure]
def offset_map_figure(
    rows: int = 4, cols: int = 8, row_stride: int = 8, i: int = 2, j: int = 5
):
    """A diagram: the logical grid with each cell's offset, and the storage
    line below it; the traced coordinate and its offset in the accent colour."""
    from snippets.lib.diagrams import ACCENT, FILL_ALPHA, INK, MUTED, figure

    layout = Layout((rows, cols), (row_stride, 1))
    target = layout(i, j)
    fig = figure(6.5, 3.2)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    span = layout(rows - 1, cols - 1) + 1
    ax.set_xlim(-1.5, max(cols, span * 0.25) + 0.5)
    ax.set_ylim(-2.6, rows + 0.8)
    from matplotlib.patches import Rectangle

    for r in range(rows):
        for c in range(cols):
            hit = (r, c) == (i, j)
            ax.add_patch(
                Rectangle(
                    (c, rows - 1 - r),
                    0.95,
                    0.95,
                    facecolor=ACCENT if hit else MUTED,
                    alpha=1 if hit else FILL_ALPHA,
                )
            )
            ax.text(
                c + 0.47,
                rows - 0.53 - r,
                str(layout(r, c)),
                ha="center",
                va="center",
                color=INK,
            )
    ax.text(
        -0.3, rows + 0.3, f"coordinate (i, j) -> offset, layout {layout}", color=INK
    )
    cell = 0.25  # the storage line: one narrow cell per offset
    for k in range(span):
        ax.add_patch(
            Rectangle(
                (k * cell, -2),
                cell * 0.9,
                0.8,
                facecolor=ACCENT if k == target else MUTED,
                alpha=1 if k == target else FILL_ALPHA,
            )
        )
    ax.text(
        -0.3,
        -1.0,
        f"storage: ({i}, {j}) -> {i}*{row_stride} + {j}*1 = {target}",
        color=INK,
    )
    return fig  # fmt: skip
    # --8<-- [end:offset-figure]


if __name__ == "__main__":
    print(trace(MATRIX, COORD))
    print(trace(transposed_view(MATRIX), COORD[::-1]))
    print(composition_example())
    print(fmt_lane("aligned"))
    print(fmt_lane("unaligned"))
