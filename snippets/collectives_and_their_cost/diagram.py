"""The collectives lesson's diagram: bus bandwidth against message size
under the alpha-beta model, for a ring of 8, a ring of 64 and a tree of 64."""

from kernels.interconnects import NVLINK4_H200
from snippets.collectives_and_their_cost.worked import PREMISE_HOP_S
from snippets.lib.collectives import bandwidths, ring_seconds, tree_all_reduce_seconds
from snippets.lib.diagrams import ACCENT, INK, MUTED, SECOND, figure, style_axes

SIZES = [2**k for k in range(10, 33)]  # 1 KiB .. 4 GiB


def bus_bandwidth_curves():
    link = NVLINK4_H200.per_direction_bytes_per_s
    fig = figure(6.5, 3.6)
    ax = fig.add_subplot()
    style_axes(ax, grid=True)
    curves = (
        (
            "ring, 8 ranks",
            ACCENT,
            lambda s: ring_seconds("all_reduce", 8, s, PREMISE_HOP_S, link),
        ),
        (
            "ring, 64 ranks",
            SECOND,
            lambda s: ring_seconds("all_reduce", 64, s, PREMISE_HOP_S, link),
        ),
        (
            "tree, 64 ranks",
            MUTED,
            lambda s: tree_all_reduce_seconds(64, s, PREMISE_HOP_S, link),
        ),
    )
    for label, colour, seconds in curves:
        world = 8 if "8" in label else 64
        busbw = [
            bandwidths("all_reduce", world, s, seconds(s))["busbw"] / 1e9 for s in SIZES
        ]
        ax.plot(SIZES, busbw, color=colour, label=label, linewidth=2)
    ax.axhline(link / 1e9, color=INK, linestyle="--", linewidth=1)
    ax.text(SIZES[0], link / 1e9, " link, per direction", color=INK, va="bottom")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("all-reduce size (bytes)")
    ax.set_ylabel("bus bandwidth (GB/s)")
    ax.set_title(f"alpha-beta model, {PREMISE_HOP_S * 1e6:g} µs per hop")
    ax.legend(frameon=False, labelcolor=INK)
    fig.tight_layout()
    return fig
