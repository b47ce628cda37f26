"""The ping-pong timeline as a picture (lesson: Warp specialisation and the
Hopper pipeline). Evidence kind: CPU model (``pipeline.py``), drawn."""

from snippets.lib.diagrams import ACCENT, FILL_ALPHA, FONT_SIZE, INK, SECOND, figure
from snippets.warp_specialisation.pipeline import Step, attention_step


def phases(step: Step, groups: int, blocks: int) -> list[tuple[int, str, float, float]]:
    """(group, phase, start, end) for every phase, as ``ping_pong`` orders
    them: "matrix" on the shared tensor cores, then "softmax" on its own."""
    ready = [0.0] * groups
    tensor_free = 0.0
    out = []
    for _ in range(blocks):
        for g in sorted(range(groups), key=lambda g: ready[g]):
            start = max(ready[g], tensor_free)
            tensor_free = start + step.matrix
            out.append((g, "matrix", start, tensor_free))
            ready[g] = tensor_free + step.softmax
            out.append((g, "softmax", tensor_free, ready[g]))
    return out


def timeline_figure(blocks: int = 3):
    """Two panels: one warpgroup (matrix, then softmax, in turn) and two
    warpgroups taking turns on the tensor cores."""
    from matplotlib.patches import Rectangle

    step = attention_step()
    fig = figure(7.0, 2.8)
    ax = fig.add_subplot()
    ax.set_axis_off()
    colour = {"matrix": ACCENT, "softmax": SECOND}
    rows = []
    for panel, groups in enumerate((1, 2)):
        for g, phase, start, end in phases(step, groups, blocks):
            y = 2.6 - 1.6 * panel - 0.6 * g
            alpha = 1.0 if phase == "matrix" else FILL_ALPHA * 3
            ax.add_patch(
                Rectangle(
                    (start, y), end - start, 0.45, color=colour[phase], alpha=alpha
                )
            )
            rows.append(y)
        label = "one warpgroup" if groups == 1 else "two warpgroups (ping-pong)"
        ax.text(0, 3.15 - 1.6 * panel, label, color=INK, fontsize=FONT_SIZE)
    end = max(e for _, _, _, e in phases(step, 1, blocks))
    ax.text(0, -0.35, "tensor cores (dark) / softmax on MUFU and FP32 (light); "
            "cycles →", color=INK, fontsize=FONT_SIZE)  # fmt: skip
    ax.set_xlim(-50, end + 50)
    ax.set_ylim(-0.5, 3.4)
    return fig
