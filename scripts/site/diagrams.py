"""Diagrams: ``<!-- diagram: PATH.py:FUNC(ARGS) "alt text" -->`` in a page.

The function (in a snippet, tested there) returns a matplotlib ``Figure``
made with ``snippets.lib.diagrams.figure``. The build saves it as SVG with
matplotlib's deterministic settings, rewrites the ink colour to
``currentColor`` so the picture follows the light or dark theme, and puts the
SVG inline in the page (an ``<img>`` could not inherit the text colour).
The page's Markdown holds a marker ``<div>`` until the HTML exists.
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Callable

DIAGRAM_RE = re.compile(
    r"<!--\s*diagram:\s*(?P<path>[\w./-]+\.py):(?P<func>\w+)\((?P<args>[^\n]*?)\)"
    r'\s*(?:"(?P<alt>[^"\n]*)")?\s*-->'
)
MARKER = '<div class="diagram-slot" data-diagram="{index}"></div>'
MARKER_RE = re.compile(r'<div class="diagram-slot" data-diagram="(\d+)"></div>')

# Same bytes for the same figure: fixed id salt, text kept as text (readable
# by search and by the browser test that measures font size), no date.
SVG_RC = {"svg.hashsalt": "gpu-perf-diagram", "svg.fonttype": "none"}
INK = "#000000"
# The smallest text a diagram may show, in CSS pixels: a figure scales down
# with its column until its smallest text would drop below this, and from
# there scrolls sideways inside its box (with a visible cue, docs/assets).
MIN_TEXT_PX = 10.0
FONT_SIZE_RE = re.compile(r"font(?:-size)?:\s*(?:[a-z]+\s+)*(?P<size>\d+(?:\.\d+)?)px")
VIEWBOX_RE = re.compile(r'viewBox="[\d.]+ [\d.]+ (?P<width>[\d.]+) [\d.]+"')


def min_width_px(svg: str, min_text_px: float = MIN_TEXT_PX) -> int:
    """The narrowest the figure may be drawn with its smallest text still at
    least min_text_px (0 when it has no text)."""
    sizes = [float(m["size"]) for m in FONT_SIZE_RE.finditer(svg)]
    box = VIEWBOX_RE.search(svg)
    if not sizes or box is None:
        return 0
    # A tenth of a pixel to spare: the browser's scale is not exact.
    return math.ceil(float(box["width"]) * (min_text_px + 0.1) / min(sizes))


# The widest a figure is drawn, as a multiple of its natural size (one SVG
# point is 4/3 of a CSS pixel): a figure narrow enough for a phone's column
# would otherwise grow with a desktop's column until its text is twice the
# prose's size. At 1.2 the site's 11-point text is about 18 px.
MAX_SCALE = 1.2


def max_width_px(svg: str, scale: float = MAX_SCALE) -> int:
    """The widest the figure may be drawn (0 when it has no viewBox)."""
    box = VIEWBOX_RE.search(svg)
    return 0 if box is None else math.floor(float(box["width"]) * 4 / 3 * scale)


def figure_svg(fig, alt: str) -> str:
    """The figure as an inline <svg> element that scales with its column."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context(SVG_RC):
        fig.savefig(buffer, format="svg", metadata={"Date": None}, transparent=True)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]  # drop the XML prolog and DOCTYPE
    # Width and height become CSS's business; the viewBox keeps the shape.
    svg = re.sub(r'<svg([^>]*?)\swidth="[^"]*"', r"<svg\1", svg, count=1)
    svg = re.sub(r'<svg([^>]*?)\sheight="[^"]*"', r"<svg\1", svg, count=1)
    label = html.escape(alt, quote=True)
    # Text matplotlib draws in black carries no fill at all (SVG's default is
    # black), tick labels and legends included: the root's fill makes every
    # such element take the theme's text colour, as INK strokes do.
    style = f"fill: currentColor; min-width: {min_width_px(svg)}px"
    widest = max_width_px(svg)
    if widest:
        style += f"; max-width: {max(widest, min_width_px(svg))}px"
    svg = svg.replace(
        "<svg", f'<svg role="img" aria-label="{label}" style="{style}"', 1
    )
    return svg.replace(INK, "currentColor")


def expand_diagrams(
    markdown: str,
    src: str,
    make_figure: Callable[[str, str, str], object],
    store: list[str],
    substitute: Callable,
) -> str:
    """Replace each placeholder with a marker and append its SVG to store.

    make_figure(path, func, args) returns the Figure; a missing alt text is an
    error because a screen reader has nothing else to say."""

    def replace(match: re.Match) -> str:
        where = f"{match['path']}:{match['func']}({match['args']})"
        alt = (match["alt"] or "").strip()
        if not alt:
            raise ValueError(f'docs/{src}: diagram {where} needs an alt text: "..."')
        fig = make_figure(match["path"], match["func"], match["args"])
        if not hasattr(fig, "savefig"):
            raise TypeError(
                f"docs/{src}: diagram {where} returned {type(fig).__name__}, "
                "not a matplotlib Figure"
            )
        store.append(
            f'<figure class="diagram">{figure_svg(fig, alt)}'
            f"<figcaption>{html.escape(alt)}</figcaption></figure>"
        )
        return "\n" + MARKER.format(index=len(store) - 1) + "\n"

    return substitute(DIAGRAM_RE, replace, markdown)


def place_diagrams(output: str, store: list[str]) -> str:
    """Swap each marker in the rendered page for its SVG figure."""
    return MARKER_RE.sub(lambda m: store[int(m[1])], output)
