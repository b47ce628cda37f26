"""Where one matmul tile's data goes on each target, as a picture (lesson:
The same kernel on three architectures). Evidence kind: compiled artifact
(the paths are the memory and matrix instructions ``compiled.py`` reads),
drawn."""

from snippets.lib.diagrams import ACCENT, FILL_ALPHA, FONT_SIZE, INK, SECOND, figure

#: Each target's path for the operands, top to bottom: (place, how it got
#: there). The first step is the copy, the last the accumulator's home.
PATHS = {
    "sm_90a": [
        ("global memory", ""),
        ("shared memory", "TMA (UTMALDG)"),
        ("tensor cores", "wgmma (HGMMA)"),
        ("registers: accumulator", "accumulates"),
    ],
    "sm_100a": [
        ("global memory", ""),
        ("shared memory", "TMA (UTMALDG)"),
        ("tensor cores", "tcgen05 (UTCHMMA)"),
        ("tensor memory: accumulator", "read out (LDTM)"),
    ],
    "sm_120a": [
        ("global memory", ""),
        ("shared memory", "TMA (UTMALDG)"),
        ("registers: operands", "ldmatrix (LDSM)"),
        ("tensor cores → registers", "mma.sync (HMMA)"),
    ],
}


def paths_figure():
    """Three columns of boxes, one per target, joined by labelled arrows.

    The axes fill the figure (no blank margin), and the smallest text is
    8 pt: the figure fits a 688 px desktop column and scrolls on a phone."""
    from matplotlib.patches import FancyBboxPatch

    fig = figure(7.0, 3.1)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_axis_off()
    for column, (target, steps) in enumerate(PATHS.items()):
        x = column * 2.4
        ax.text(x + 1.1, 4.25, target, ha="center", color=INK, fontsize=FONT_SIZE + 1)
        for row, (place, how) in enumerate(steps):
            y = 3.5 - row * 1.1
            accumulator = "accumulator" in place or row == len(steps) - 1
            ax.add_patch(
                FancyBboxPatch(
                    (x, y), 2.2, 0.5, boxstyle="round,pad=0.03",
                    color=ACCENT if accumulator else SECOND, alpha=FILL_ALPHA * 2,
                )
            )  # fmt: skip
            ax.text(x + 1.1, y + 0.25, place, ha="center", va="center",
                    color=INK, fontsize=FONT_SIZE - 2)  # fmt: skip
            if how:
                ax.annotate("", (x + 1.1, y + 0.52), (x + 1.1, y + 1.08),
                            arrowprops={"arrowstyle": "->", "color": INK})  # fmt: skip
                ax.text(x + 1.15, y + 0.8, how, ha="left", va="center",
                        color=INK, fontsize=FONT_SIZE - 3)  # fmt: skip
    ax.set_xlim(-0.05, 7.15)
    ax.set_ylim(0.12, 4.5)
    return fig
