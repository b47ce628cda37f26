"""One look for every diagram on the site.

A page's diagram is a function in its snippet folder that returns a
matplotlib ``Figure`` made by :func:`figure`; the build turns it into an SVG
inside the page (``<!-- diagram: PATH.py:FUNC(ARGS) "alt text" -->``). Lines
and text drawn in :data:`INK` follow the reader's light or dark theme, since
the build rewrites that colour to the page's text colour.
"""

from __future__ import annotations

#: Drawn as the page's text colour (the build swaps it for ``currentColor``).
INK = "#000000"
#: Highlight: teal reads on white and on Material's dark slate alike.
ACCENT = "#159a8c"
#: A second highlight, amber, for the thing being contrasted: dark enough for
#: text at 3:1 on white and on the dark slate alike.
SECOND = "#c27a00"
#: Grey for context: cells, grids, things not in focus.
MUTED = "#8c8c8c"
#: Fill for a cell with no emphasis: grey at low opacity works on both themes.
FILL_ALPHA = 0.25

#: Points of text at the figure's natural size. A page scales a diagram down
#: with its column only until its smallest text reaches 10 px, and scrolls it
#: from there (scripts/site/diagrams.py).
FONT_SIZE = 11
MAX_WIDTH_IN = 7.0
#: The widest a figure may be and still fit a phone's column without
#: scrolling: a 390 px screen leaves about 350 px of column, and a figure
#: whose smallest text is FONT_SIZE - 1 may shrink to 4.6 * 72 * 10.1 / 10,
#: about 335 px, before that text drops below 10 px.
PHONE_WIDTH_IN = 4.6


def figure(width_in: float, height_in: float):
    """A blank figure with a transparent background and the site's fonts.

    No pyplot: a figure owned by the caller, so nothing global survives a
    build."""
    if not 0 < width_in <= MAX_WIDTH_IN:
        raise ValueError(f"width_in must be in (0, {MAX_WIDTH_IN}], got {width_in}")
    if not 0 < height_in <= 2 * MAX_WIDTH_IN:
        raise ValueError(
            f"height_in must be in (0, {2 * MAX_WIDTH_IN}], got {height_in}"
        )
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width_in, height_in), facecolor="none")
    return fig


def style_axes(ax, *, grid: bool = False) -> None:
    """INK spines, ticks and labels at the site's font size, no background."""
    ax.set_facecolor("none")
    for spine in ax.spines.values():
        spine.set_color(INK)
    ax.tick_params(colors=INK, labelsize=FONT_SIZE)
    ax.xaxis.label.set_color(INK)
    ax.yaxis.label.set_color(INK)
    ax.xaxis.label.set_size(FONT_SIZE)
    ax.yaxis.label.set_size(FONT_SIZE)
    ax.title.set_color(INK)
    ax.title.set_size(FONT_SIZE + 1)
    if grid:
        ax.grid(True, color=MUTED, alpha=0.4, linewidth=0.6)


def plain_log_ticks(axis, ticks: list[float]) -> None:
    """Put tick labels on a log axis at `ticks` as plain text ('0.01', '1',
    '100', '10k', '4,096'): matplotlib's default math text draws a power's
    exponent at 70% of the font size, too small to read on a phone."""
    from matplotlib.ticker import FixedLocator, NullLocator

    axis.set_major_locator(FixedLocator(ticks))
    axis.set_minor_locator(NullLocator())
    axis.set_ticklabels([plain_number(t) for t in ticks])


def plain_number(value: float) -> str:
    """A tick value as a reader writes it: '0.01', '10', '10k', '1M', '4,096'."""
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if value / size in (1, 10, 100):
            return f"{value / size:g}{suffix}"
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


if __name__ == "__main__":
    fig = figure(4, 2)
    ax = fig.add_subplot()
    style_axes(ax)
    ax.plot([0, 1, 2], [0, 1, 4], color=ACCENT)
    print(f"a {fig.get_figwidth():g} x {fig.get_figheight():g} in figure, one axes")
