"""The roofline diagram: the H200's roofs with every project kernel on it
(docs/kernels/where-time-goes/napkin-math-and-the-roofline.md).
"""

from __future__ import annotations

from kernels.devices import H200
from snippets.napkin_math_and_the_roofline.floor import PEAKS, fmt_num, ridge
from snippets.napkin_math_and_the_roofline.points import measured_points, points

# -------------------------------------------------------------- the diagram

MARKERS = "osD^vP*X"


def roofline_figure(measured: bool = True):
    """Log-log roofline of the H200 with every project kernel on it."""
    from snippets.lib.diagrams import (
        ACCENT,
        FONT_SIZE,
        INK,
        MUTED,
        PHONE_WIDTH_IN,
        SECOND,
        figure,
        plain_log_ticks,
        style_axes,
    )

    # Phone-width, the legend stacked under the plot rather than inside it.
    fig = figure(PHONE_WIDTH_IN, 5.0)
    ax = fig.add_axes((0.17, 0.38, 0.79, 0.59))
    style_axes(ax, grid=True)
    ax.set_xscale("log")
    ax.set_yscale("log")
    lo, hi = 1e-2, 1e4
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    bw = H200.hbm_bytes_per_s
    for dtype, colour, style in (
        ("fp32", MUTED, "-"),
        ("fp8", SECOND, "--"),
        ("bf16", ACCENT, "-"),
    ):
        ys = [min(bw * x, PEAKS[dtype]) / 1e12 for x in xs]
        ax.plot(xs, ys, color=colour, linestyle=style, linewidth=1.6)
        ax.plot([ridge(dtype)], [PEAKS[dtype] / 1e12], "|", color=colour, ms=12)
        ax.annotate(
            f"{dtype} ridge {fmt_num(ridge(dtype))}",
            (ridge(dtype), PEAKS[dtype] / 1e12),
            # Right of the ridge's tick: the slope to its left stays clear.
            xytext=(-4, 5),
            ha="right",
            textcoords="offset points",
            color=colour,
            fontsize=FONT_SIZE,
        )
    by_kernel: dict[str, list[dict]] = {}
    for row in points():
        by_kernel.setdefault(row["kernel"], []).append(row)
    zero = []
    for i, rows in enumerate(by_kernel.values()):
        placed = [r for r in rows if r["flops"] > 0]
        if not placed:
            zero.append(rows[0]["title"])
            continue
        ax.plot(
            [r["intensity"] for r in placed],
            [r["flops"] / r["floor_s"] / 1e12 for r in placed],
            MARKERS[i % len(MARKERS)],
            color=INK,
            ms=6,
            linestyle="none",
            label=rows[0]["title"],
        )
    if measured:
        found = measured_points()
        if found:
            ax.plot(
                [m["intensity"] for m in found],
                [m["flop_per_s"] / 1e12 for m in found],
                "o",
                mfc="none",
                color=ACCENT,
                ms=9,
                linestyle="none",
                label="measured",
            )
    ax.set_xlim(lo, hi)
    ax.set_ylim(top=PEAKS["fp8"] / 1e12 * 4)
    plain_log_ticks(ax.xaxis, [1e-2, 1, 1e2, 1e4])
    plain_log_ticks(ax.yaxis, [0.1, 1, 10, 100, 1e3])
    ax.set_xlabel("arithmetic intensity,\nFLOP per byte of HBM traffic")
    ax.set_ylabel("attainable TFLOP/s")
    legend = fig.legend(
        loc="lower center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=2,
        fontsize=FONT_SIZE - 1,
        frameon=False,
        title=f"not drawn: {', '.join(zero)} (no FLOPs)" if zero else None,
        title_fontsize=FONT_SIZE - 1,
    )
    for text in [*legend.get_texts(), legend.get_title()]:
        text.set_color(INK)
    return fig


if __name__ == "__main__":
    (legend,) = roofline_figure().legends
    print(f"{len(legend.get_texts())} kernels on the roofline")
