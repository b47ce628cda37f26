"""What attention's forward keeps for its backward, against sequence length
(lesson: A backward kernel). Evidence kind: pencil model (attention.py),
drawn."""

from dataclasses import replace

from kernels.devices import H200
from snippets.backward_kernel.attention import LAYERS, WORKED, held_bytes
from snippets.lib.diagrams import ACCENT, FONT_SIZE, MUTED, SECOND, figure, style_axes

SEQ_LENGTHS = [2**n for n in range(9, 16)]  # 512 to 32,768


def held_series(recompute: bool) -> list[float]:
    """GiB held across all LAYERS layers, one sequence, per length."""
    return [
        LAYERS * held_bytes(replace(WORKED, seq=s), recompute) / 2**30
        for s in SEQ_LENGTHS
    ]


def held_figure():
    """Two lines on log axes: P grows with the square of the length, L with
    the length; the H200's memory as a horizontal line."""
    fig = figure(6.0, 3.2)
    ax = fig.add_subplot()
    style_axes(ax, grid=True)
    ax.loglog(SEQ_LENGTHS, held_series(False), color=SECOND, marker="o",
              label="store P (bf16)")  # fmt: skip
    ax.loglog(SEQ_LENGTHS, held_series(True), color=ACCENT, marker="o",
              label="recompute: keep L (fp32)")  # fmt: skip
    ax.axhline(H200.memory_bytes / 2**30, color=MUTED, linestyle="--",
               label="an H200's memory")  # fmt: skip
    ax.set_xscale("log", base=2)
    ax.set_xlabel("sequence length")
    ax.set_ylabel(f"GiB kept, {LAYERS} layers")
    ax.legend(fontsize=FONT_SIZE - 1, frameon=False)
    fig.tight_layout()
    return fig
