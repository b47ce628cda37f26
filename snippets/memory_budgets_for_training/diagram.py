"""The training-memory lesson's diagram: per-GPU memory at each ZeRO stage,
stacked by kind, against one H200's memory."""

from kernels.devices import H200
from snippets.lib.diagrams import (
    ACCENT,
    INK,
    MUTED,
    PHONE_WIDTH_IN,
    SECOND,
    figure,
    style_axes,
)
from snippets.lib.training_memory.budget import GB, training_memory_bytes
from snippets.lib.training_memory.worked import WORKED, model

KINDS = ("weights", "gradients", "optimizer", "activations")
COLOURS = (ACCENT, SECOND, MUTED, INK)
# The backward pass's working set (recomputed layer, logits, gathered
# layers) is drawn with the activations it sits beside.
DRAWN_WITH = {"activations": ("activations", "working set")}


def zero_stage_bars(key: str = "llama3-70b", recompute: str = "full"):
    """One stacked bar per ZeRO stage (0 = plain data parallel) for the
    worked micro-batch and rank count; a line at the H200's memory."""
    cfg = model(key)
    stages = range(4)
    budgets = [
        training_memory_bytes(
            cfg,
            WORKED["micro_batch"],
            WORKED["seq_len"],
            recompute,
            stage,
            WORKED["data_parallel"],
        )
        for stage in stages
    ]
    # Phone-width: the legend sits under the bars, the title on two lines.
    fig = figure(PHONE_WIDTH_IN, 4.2)
    ax = fig.add_axes((0.17, 0.24, 0.79, 0.63))
    style_axes(ax)
    bottoms = [0.0] * len(budgets)
    for kind, colour in zip(KINDS, COLOURS, strict=True):
        keys = DRAWN_WITH.get(kind, (kind,))
        heights = [sum(b[k] for k in keys) / GB for b in budgets]
        ax.bar(
            list(stages),
            heights,
            bottom=bottoms,
            color=colour,
            label=" and ".join(keys),
            alpha=0.85,
        )
        bottoms = [lo + h for lo, h in zip(bottoms, heights, strict=True)]
    limit = H200.memory_bytes / GB
    ax.axhline(limit, color=INK, linestyle="--", linewidth=1)
    ax.text(3.45, limit, " one H200", color=INK, va="bottom", ha="right")
    ax.set_xticks(list(stages), ["plain DP", "ZeRO-1", "ZeRO-2", "ZeRO-3"])
    ax.set_ylabel("GB per GPU")
    ax.set_title(f"{cfg.name}, {WORKED['data_parallel']} ranks,\n{recompute} recompute")
    fig.legend(
        loc="lower center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=2,
        frameon=False,
        labelcolor=INK,
    )
    return fig


if __name__ == "__main__":
    fig = zero_stage_bars()
    ax = fig.axes[0]
    print(f"{len(ax.patches)} bars drawn on {fig.get_figwidth():g} in")
