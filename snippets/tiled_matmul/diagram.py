"""The picture behind the request count: one BM x BN tile of C, and the strip
of A beside it and the strip of B above it that its program reads, K step by
K step. Drawn for docs/kernels/matrix-multiplication/tiled-matmul.md from the
same sizes traffic.py counts with."""

import math

from snippets.lib.diagrams import (
    ACCENT,
    FILL_ALPHA,
    FONT_SIZE,
    INK,
    MUTED,
    SECOND,
    figure,
)


def tile_grid(M: int, N: int, BM: int, BN: int) -> tuple[int, int]:
    """Rows and columns of tiles in C (ragged edges count as a tile)."""
    for name, value in (("M", M), ("N", N), ("BM", BM), ("BN", BN)):
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    return math.ceil(M / BM), math.ceil(N / BN)


def tile_strips_figure(M: int = 6, N: int = 8, K: int = 5, row: int = 2, col: int = 5):
    """C (M x N tiles) with tile (row, col) marked, the strip of A it reads
    (row `row`, all K steps) and the strip of B (column `col`). Sizes are in
    tiles, small enough to see; the lesson's counts use real sizes."""
    if not (0 <= row < M and 0 <= col < N):
        raise ValueError(f"row, col must lie inside the {M} x {N} grid of tiles")
    if K < 1:
        raise ValueError(f"K must be at least 1, got {K}")
    fig = figure(6.4, 4.6)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    gap = 1.0
    # B sits above C, A to the left of C; y grows downward.
    b_x, b_y = K + gap, 0
    c_x, c_y = K + gap, K + gap
    a_x, a_y = 0, K + gap

    def cell(x, y, colour, alpha, edge=MUTED, width=0.6):
        ax.add_patch(_rect(x, y, colour, alpha, edge, width))

    for i in range(M):
        for j in range(N):
            here = (i, j) == (row, col)
            cell(
                c_x + j, c_y + i, ACCENT if here else MUTED, 1.0 if here else FILL_ALPHA
            )
        for k in range(K):
            cell(
                a_x + k,
                a_y + i,
                SECOND if i == row else MUTED,
                0.85 if i == row else FILL_ALPHA,
            )
    for k in range(K):
        for j in range(N):
            cell(
                b_x + j,
                b_y + k,
                SECOND if j == col else MUTED,
                0.85 if j == col else FILL_ALPHA,
            )
    size = FONT_SIZE
    ax.text(
        c_x + N / 2,
        c_y + M + 0.5,
        "C  (one program per tile)",
        ha="center",
        va="top",
        color=INK,
        fontsize=size,
    )
    ax.text(
        a_x + K / 2, a_y + M + 0.5, "A", ha="center", va="top", color=INK, fontsize=size
    )
    ax.text(
        b_x + N + 0.3,
        b_y + K / 2,
        "B",
        ha="left",
        va="center",
        color=INK,
        fontsize=size,
    )
    ax.text(
        a_x + K / 2,
        a_y - 0.3,
        "strip of A:\nBM rows × all of K",
        ha="center",
        va="bottom",
        color=INK,
        fontsize=size,
    )
    ax.text(
        b_x - 0.3,
        b_y + K / 2,
        "strip of B:\nall of K × BN columns",
        ha="right",
        va="center",
        color=INK,
        fontsize=size,
    )
    ax.set_xlim(-0.2, c_x + N + 1.2)
    ax.set_ylim(c_y + M + 1.4, -0.6)
    ax.set_aspect("equal")
    return fig


def _rect(x, y, colour, alpha, edge, width):
    from matplotlib.patches import Rectangle

    return Rectangle(
        (x, y), 1, 1, facecolor=colour, alpha=alpha, edgecolor=edge, linewidth=width
    )


if __name__ == "__main__":
    fig = tile_strips_figure()
    patches = fig.axes[0].patches
    rows, cols = tile_grid(4096, 4096, 128, 128)
    print(f"{len(patches)} cells drawn; one tile of C reads 1 strip of A and 1 of B")
    print(f"at 4096 x 4096 with 128 x 128 tiles: {rows} x {cols} tiles")
