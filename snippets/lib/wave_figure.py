"""The waves model drawn: one row per wave, one cell per slot.

Shown on docs/kernels/work-mapping/threads-blocks-warps-waves.md,
docs/interview/partial-wave-gemm.md and docs/projects/work-mapping.md. Kept
apart from waves.py so that the calculators built on the model import the
standard library only.
"""

from __future__ import annotations

from kernels.devices import H200
from snippets.lib.waves import Waves


# --8<-- [start:waves-figure]
def waves_figure(grid_size: int, sm_count: int = H200.sm_count, blocks_per_sm: int = 1):
    """A diagram: one row per wave, one cell per slot; busy cells in the
    accent colour, the idle slots of the last wave in grey."""
    from snippets.lib.diagrams import (
        ACCENT,
        FILL_ALPHA,
        INK,
        MUTED,
        PHONE_WIDTH_IN,
        figure,
        style_axes,
    )

    waves = Waves(sm_count, blocks_per_sm, grid_size)
    fig = figure(PHONE_WIDTH_IN, 0.9 + 0.45 * waves.count)  # fits a phone
    ax = fig.add_subplot()
    for row, busy in enumerate(waves.sizes):
        y = waves.count - 1 - row  # the first wave on top
        ax.broken_barh([(0, busy)], (y + 0.1, 0.8), facecolors=ACCENT)
        if busy < waves.slots:
            ax.broken_barh(
                [(busy, waves.slots - busy)],
                (y + 0.1, 0.8),
                facecolors=MUTED,
                alpha=FILL_ALPHA,
            )
        ax.text(
            waves.slots + 1,
            y + 0.5,
            f"{busy}/{waves.slots}",
            va="center",
            color=INK,
        )
    style_axes(ax)
    ax.set_xlim(0, waves.slots * 1.18)
    ax.set_ylim(0, waves.count)
    ax.set_yticks([waves.count - 0.5 - i for i in range(waves.count)])
    ax.set_yticklabels([f"wave {i + 1}" for i in range(waves.count)])
    ax.set_xlabel(f"slot ({sm_count} SMs x {blocks_per_sm} per SM)")
    fig.tight_layout()  # room for the axis label inside the drawing
    return fig
    # --8<-- [end:waves-figure]


if __name__ == "__main__":
    ax = waves_figure(140).axes[0]
    print(f"{len(ax.texts)} waves drawn: " + ", ".join(t.get_text() for t in ax.texts))
