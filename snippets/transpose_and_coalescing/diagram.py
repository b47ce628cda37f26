"""Bank maps of a small tile: where one column of the tile lands.

Shown on docs/kernels/memory-bound/transpose-and-coalescing.md. Evidence
kind: pencil model (banks.py), drawn at a reduced scale: 8 banks and an
8 x 8 tile behave like 32 banks and a 32 x 32 tile.
"""

from snippets.lib.diagrams import ACCENT, FILL_ALPHA, FONT_SIZE, INK, MUTED, figure
from snippets.transpose_and_coalescing.banks import LAYOUTS, words_used


def column_cells(layout: str, width: int, col: int = 0) -> list[tuple[int, int]]:
    """(memory row, bank) of each element of column `col`, where a memory
    row is `width` consecutive words (one pass over all banks)."""
    place = LAYOUTS[layout]
    return [divmod(place(r, col, width), width) for r in range(width)]


def bank_map_figure(width: int = 8, col: int = 1):
    """One panel per layout: a grid of words (memory rows by banks), the
    cells holding column `col` of the tile filled in the accent colour."""
    from matplotlib.patches import Rectangle

    fig = figure(6.8, 2.9)
    for k, name in enumerate(LAYOUTS):
        ax = fig.add_subplot(1, len(LAYOUTS), k + 1)
        ax.set_axis_off()
        cells = set(column_cells(name, width, col))
        rows = -(-words_used(name, width) // width)
        for row in range(rows):
            for bank in range(width):
                hit = (row, bank) in cells
                ax.add_patch(
                    Rectangle(
                        (bank, rows - 1 - row),
                        0.9,
                        0.9,
                        facecolor=ACCENT if hit else MUTED,
                        alpha=1.0 if hit else FILL_ALPHA,
                        edgecolor="none",
                    )
                )
        # Every label inside the panel's limits, so none falls outside the
        # drawing: the layout on top, bank numbers above the grid, and the
        # memory rows counted down the left of the first panel.
        ax.set_xlim(-1.2 if k == 0 else -0.2, width)
        ax.set_ylim(-0.2, rows + 1.9)
        ax.set_aspect("equal")
        ax.text(0, rows + 1.0, name, color=INK, fontsize=FONT_SIZE)
        for bank in range(0, width, 2):
            ax.text(
                bank + 0.45, rows + 0.15, str(bank), ha="center", color=INK,
                fontsize=FONT_SIZE - 1,
            )  # fmt: skip
        if k == 0:
            ax.text(
                -0.5, rows / 2, "word row ↓", rotation=90, ha="center",
                va="center", color=INK, fontsize=FONT_SIZE - 1,
            )  # fmt: skip
    fig.text(
        0.01,
        0.02,
        f"bank →, one square a 4-byte word; column {col} of the tile filled",
        color=INK,
        fontsize=FONT_SIZE,
    )
    return fig


if __name__ == "__main__":
    for name in LAYOUTS:
        print(name, [bank for _, bank in column_cells(name, 8, 1)])
