"""The project page's diagram: the committed CPU run's all-reduce times
against message size, fitted and held-back points apart, with the fit."""

from snippets.lib.diagrams import ACCENT, INK, SECOND, figure, style_axes
from snippets.measure_collectives.project import committed_run, fit, model_of


def fit_plot(collective: str = "all_reduce", world: int = 2):
    run = committed_run()
    f = fit(run, collective, world)
    model = model_of(f)
    points = sorted(
        (m["size"], m["seconds"])
        for m in run["measurements"]
        if m["collective"] == collective and m["world"] == world
    )
    fig = figure(6.5, 3.6)
    ax = fig.add_subplot()
    style_axes(ax, grid=True)
    for label, colour, sizes in (
        ("fitted", ACCENT, f["fit_sizes"]),
        ("held back", SECOND, f["held_back_sizes"]),
    ):
        chosen = [(s, t) for s, t in points if s in sizes]
        ax.plot(
            [s for s, _ in chosen],
            [t * 1e3 for _, t in chosen],
            "o",
            color=colour,
            label=f"measured, {label} (CPU)",
        )
    line = [s for s, _ in points]
    ax.plot(
        line,
        [model.seconds(s) * 1e3 for s in line],
        color=INK,
        linewidth=1,
        label="alpha-beta fit",
    )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("time per call (ms)")
    ax.set_title(f"{collective}, {world} gloo ranks on one CPU host")
    ax.legend(frameon=False, labelcolor=INK)
    fig.tight_layout()
    return fig
