"""The overlap lesson's diagram: two timelines of Llama-3 8B's backward
pass and its gradient all-reduces, one bucket against DDP-sized buckets."""

from snippets.lib.diagrams import ACCENT, INK, MUTED, SECOND, figure, style_axes
from snippets.overlapping_communication.timeline import DDP_BUCKET_BYTES, scenario


def two_timelines():
    runs = (
        ("one bucket", scenario(bucket_mib=1e6)),
        (f"{DDP_BUCKET_BYTES / 2**20:g} MiB buckets", scenario()),
    )
    fig = figure(6.8, 3.4)
    ax = fig.add_subplot()
    style_axes(ax)
    ticks, labels = [], []
    for row, (label, tl) in enumerate(runs):
        y = 3 * (len(runs) - 1 - row)
        compute = [(s.start * 1e3, (s.end - s.start) * 1e3) for s in tl["layers"]]
        comm = [(b.start * 1e3, (b.end - b.start) * 1e3) for b in tl["buckets"]]
        ax.broken_barh(compute, (y + 1.1, 0.8), facecolors=MUTED, edgecolor="none")
        colours = [ACCENT if i % 2 else SECOND for i in range(len(comm))]
        ax.broken_barh(comm, (y + 0.1, 0.8), facecolors=colours, edgecolor="none")
        ticks += [y + 1.5, y + 0.5]
        labels += [f"{label}: backward", "all-reduce"]
        end = max(tl["backward_end"], tl["buckets"][-1].end) * 1e3
        ax.axvline(end, ymin=0, ymax=1, color=INK, linewidth=0.6, linestyle=":")
    ax.set_yticks(ticks, labels)
    ax.set_xlabel("milliseconds into the backward pass")
    ax.set_title("Llama-3 8B, 32 GPUs: gradients over\nInfiniBand NDR (a model)")
    fig.tight_layout()
    return fig
