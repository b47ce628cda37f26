"""The whole-model roofline lesson's diagram: one Llama-3 8B layer's
operations, in a decode step and in a prefill, on the H200's roofline."""

from kernels.devices import H200
from snippets.lib.diagrams import ACCENT, INK, MUTED, SECOND, figure, style_axes
from snippets.whole_model_roofline.worked import ops

MARKERS = {"decode": ("o", SECOND), "prefill": ("s", ACCENT)}


def attainable(intensity: float) -> float:
    return min(H200.bf16_dense_flop_per_s, intensity * H200.hbm_bytes_per_s)


def layer_roofline(key: str = "llama3-8b"):
    """Every op of one layer, both phases; size of a marker ~ its time."""
    fig = figure(6.5, 3.8)
    ax = fig.add_subplot()
    style_axes(ax, grid=True)
    xs = [2 ** (k / 4) for k in range(-4, 49)]
    ax.plot(xs, [attainable(x) / 1e12 for x in xs], color=INK, linewidth=1.5)
    ridge = H200.bf16_dense_flop_per_s / H200.hbm_bytes_per_s
    ax.axvline(ridge, color=MUTED, linestyle=":", linewidth=1)
    for phase, (marker, colour) in MARKERS.items():
        items = ops(key, phase)
        longest = max(op.seconds() for op in items)
        for i, op in enumerate(items):
            x, y = op.intensity, attainable(op.intensity) / 1e12
            size = 30 + 170 * op.seconds() / longest
            ax.scatter(
                [x],
                [y],
                s=size,
                marker=marker,
                # Hollow, so ops at the same intensity stay visible inside
                # each other (the decode ops all sit near one FLOP per byte).
                facecolors="none",
                edgecolors=colour,
                linewidths=1.5,
                label=f"{phase} (area ~ time)" if i == 0 else None,
            )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("FLOPs per byte moved")
    ax.set_ylabel("TFLOP/s at most")
    ax.set_title("One layer's ops: decode on the slope, prefill on the roof")
    ax.legend(frameon=False, labelcolor=INK, loc="lower right")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    fig = layer_roofline()
    print(f"{len(fig.axes[0].collections)} ops placed on the roofline")
