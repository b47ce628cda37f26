"""The fusion speedup across sizes, drawn from the pencil model.

Shown on docs/kernels/memory-bound/fusion-residual-add-relu.md as a
diagram. Evidence kind: pencil model (traffic.py); no measurement.
"""

from snippets.fusion_residual_add_relu.traffic import (
    WORKED,
    intermediate_fits_l2,
    model_speedup,
)
from snippets.lib.diagrams import (
    ACCENT,
    FONT_SIZE,
    INK,
    MUTED,
    SECOND,
    figure,
    style_axes,
)


def curve(itemsize: int, launch_us: float, tmp_in_l2: bool) -> list[tuple[int, float]]:
    """(elements, modelled speedup) at every power of two from 2**10 to 2**30;
    with tmp_in_l2, only the sizes whose intermediate fits in L2."""
    points = []
    for power in range(10, 31):
        numel = 1 << power
        if tmp_in_l2 and not intermediate_fits_l2(numel, itemsize):
            continue
        speedup = model_speedup(numel, itemsize, launch_us, tmp_in_l2=tmp_in_l2)
        points.append((numel, speedup))
    return points


def speedup_figure(itemsize: int = 2, launch_us: float = WORKED["launch_us"]):
    """Two curves (tmp in HBM, tmp in L2) and the two limits, 2 and 5/3."""
    fig = figure(6.5, 3.4)
    ax = fig.add_subplot()
    style_axes(ax, grid=True)
    for tmp_in_l2, colour, label in (
        (False, ACCENT, "tmp goes to HBM"),
        (True, SECOND, "tmp stays in L2"),
    ):
        xs, ys = zip(*curve(itemsize, launch_us, tmp_in_l2), strict=True)
        ax.plot(xs, ys, color=colour, linewidth=2, label=label)
    for level, text in ((2.0, "launch-bound limit: 2×"), (5 / 3, "byte limit: 5/3×")):
        ax.axhline(level, color=MUTED, linestyle="--", linewidth=1)
        ax.text(2**10, level + 0.02, text, color=INK, fontsize=FONT_SIZE)
    ax.set_xscale("log", base=2)
    ax.set_ylim(0.9, 2.2)
    ax.set_xlabel("elements per tensor")
    ax.set_ylabel("unfused time / fused time")
    ax.legend(loc="lower left", fontsize=FONT_SIZE, frameon=False, labelcolor=INK)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    for numel, speedup in curve(2, WORKED["launch_us"], tmp_in_l2=False)[::5]:
        print(f"{numel:>13,} elements: {speedup:.2f}x")
