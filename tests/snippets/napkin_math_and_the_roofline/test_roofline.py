"""The roofline diagram draws every kernel the catalog has."""

from snippets.lib import diagrams
from snippets.napkin_math_and_the_roofline import points
from snippets.napkin_math_and_the_roofline import roofline as rl


def test_diagram_places_every_kernel_with_flops():
    fig = rl.roofline_figure()
    (ax,) = fig.axes
    (legend,) = fig.legends  # under the plot, so it fits a phone's column
    labels = [t.get_text() for t in legend.get_texts()]
    with_flops = {r["title"] for r in points.points() if r["flops"] > 0}
    assert set(labels) == with_flops
    drawn = sum(
        len(line.get_xdata()) for line in ax.lines if line.get_label() in labels
    )
    assert drawn == sum(1 for r in points.points() if r["flops"] > 0)
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "transpose" in legend.get_title().get_text() and "bf16 ridge" in texts
    assert fig.get_figwidth() <= diagrams.PHONE_WIDTH_IN
