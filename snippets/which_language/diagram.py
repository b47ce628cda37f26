"""The decision grid as a picture (docs/kernels/below-triton/which-language.md):
the cells the author writes, filled. Evidence kind: the grid's data
(``languages.py``), drawn."""

from snippets.which_language.languages import GRID, LANGUAGES


def grid_cells() -> list[tuple[int, int, bool]]:
    """(row, column, yours) for every decision and language."""
    return [
        (r, c, cell == "you")
        for r, cells in enumerate(GRID.values())
        for c, cell in enumerate(cells)
    ]


def grid_figure():
    """Decisions down, languages across (highest level on the left); a
    filled cell is a decision the kernel's author makes."""
    from matplotlib.patches import Rectangle

    from snippets.lib.diagrams import ACCENT, FILL_ALPHA, INK, MUTED, figure

    rows = len(GRID)
    fig = figure(7.0, 3.4)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    for r, c, yours in grid_cells():
        ax.add_patch(
            Rectangle(
                (3.2 + c, rows - 1 - r),
                0.92,
                0.85,
                color=ACCENT if yours else MUTED,
                alpha=1 if yours else FILL_ALPHA,
            )
        )
    for r, decision in enumerate(GRID):
        ax.text(3.1, rows - 0.6 - r, decision, ha="right", color=INK, fontsize=8)
    for c, language in enumerate(LANGUAGES):
        ax.text(
            3.65 + c,
            rows + 0.1,
            language,
            ha="left",
            rotation=30,
            color=INK,
            fontsize=8,
        )
    # Room on the right and above for the last rotated label ("CUDA C++ and
    # PTX" is the longest and comes last).
    ax.set_xlim(-0.5, 5.0 + len(LANGUAGES))
    ax.set_ylim(-0.2, rows + 2.4)
    return fig
