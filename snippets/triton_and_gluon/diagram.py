"""The Blackwell Gluon kernel's partitions and the barriers between them, as
a picture (docs/kernels/below-triton/triton-and-gluon.md). Evidence kind:
compiled artifact (the partitions the TTGIR holds), drawn; the barrier
protocol is the kernel source's (kernels/matmul/gluon.py)."""

from snippets.triton_and_gluon.side_by_side import record

#: Who signals whom, and through which mbarrier (the kernel's names).
SIGNALS = (
    ("TMA", "MMA", "filled[s]"),
    ("MMA", "TMA", "emptied[s]"),
    ("MMA", "epilogue", "acc_ready"),
    ("epilogue", "MMA", "acc_drained"),
)


def roles() -> list[tuple[str, int, str]]:
    """(role, warps, what it issues) per partition of the sm_100a build, in
    the TTGIR's order: the default region (the kernel's warps), then the
    workers, named by what they issue."""
    entry = record("gluon", "sm_100a")
    out = []
    for part in entry["partitions"]:
        warps = entry["num_warps"] if part["warps"] is None else part["warps"]
        if part["tma_copies"]:
            out.append(("TMA", warps, f"{part['tma_copies']} TMA copies per step"))
        elif part["products_a"]:
            n = len(part["products_a"])
            out.append(("MMA", warps, f"{n} tcgen05 product{'s' * (n > 1)} per step"))
        else:
            out.append(("epilogue", warps, "tensor memory to C"))
    return out


def partitions_figure():
    """Three boxes, one per partition, with its warps and work; arrows for
    each mbarrier signal between them."""
    from snippets.lib.diagrams import ACCENT, FILL_ALPHA, INK, SECOND, figure

    fig = figure(7.0, 2.6)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    x = {"TMA": 0.0, "MMA": 4.0, "epilogue": 8.0}
    from matplotlib.patches import Rectangle

    for role, warps, work in roles():
        ax.add_patch(
            Rectangle((x[role], 1.0), 3.0, 1.2, color=ACCENT, alpha=FILL_ALPHA)
        )
        ax.text(
            x[role] + 1.5,
            1.85,
            f"{role} ({warps} warp{'s' * (warps > 1)})",
            ha="center",
            color=INK,
            fontsize=10,
        )
        ax.text(x[role] + 1.5, 1.35, work, ha="center", color=INK, fontsize=8)
    for source, target, name in SIGNALS:
        forward = x[target] > x[source]
        y = 2.5 if forward else 0.6
        start = x[source] + (3.0 if forward else 0.0)
        end = x[target] + (0.0 if forward else 3.0)
        ax.annotate(
            "",
            xy=(end, y),
            xytext=(start, y),
            arrowprops={"arrowstyle": "->", "color": SECOND},
        )
        ax.text(
            (start + end) / 2,
            y + (0.12 if forward else -0.35),
            name,
            ha="center",
            color=INK,
            fontsize=8,
        )
    ax.set_xlim(-0.3, 11.3)
    ax.set_ylim(0.0, 3.0)
    return fig
