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
        SECOND,
        figure,
        style_axes,
    )

    fig = figure(7.0, 4.6)
    ax = fig.add_subplot()
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
            xytext=(4, 5),
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
    if zero:
        ax.text(
            lo * 1.3,
            PEAKS["fp8"] / 1e12 * 0.5,
            f"not drawn: {', '.join(zero)} (no FLOPs)",
            color=INK,
            fontsize=FONT_SIZE,
            va="top",
        )
    ax.set_xlim(lo, hi)
    ax.set_ylim(top=PEAKS["fp8"] / 1e12 * 4)
    ax.set_xlabel("arithmetic intensity, FLOP per byte of HBM traffic")
    ax.set_ylabel("attainable TFLOP/s")
    legend = ax.legend(loc="lower right", fontsize=FONT_SIZE - 1, frameon=False)
    for text in legend.get_texts():
        text.set_color(INK)
    fig.subplots_adjust(left=0.11, right=0.98, top=0.97, bottom=0.12)
    return fig


if __name__ == "__main__":
    (ax,) = roofline_figure().axes
    print(f"{len(ax.get_legend().get_texts())} kernels on the roofline")
