import re

import pytest

from scripts.site import diagrams as site_diagrams
from scripts.site.fences import substitute_in_prose
from snippets.lib import diagrams


def two_bars():
    fig = diagrams.figure(4, 2)
    ax = fig.add_subplot()
    diagrams.style_axes(ax)
    ax.bar(["a", "b"], [1, 2], color=diagrams.ACCENT)
    ax.set_xlabel("label")
    return fig


def expand(markdown, store, make=lambda path, func, args: two_bars()):
    return site_diagrams.expand_diagrams(
        markdown, "page.md", make, store, substitute_in_prose
    )


def test_svg_follows_the_theme_and_scales():
    svg = site_diagrams.figure_svg(two_bars(), "two bars")
    assert svg.startswith("<svg")
    assert 'aria-label="two bars"' in svg
    assert "#000000" not in svg and "currentColor" in svg
    assert "viewBox" in svg
    assert not re.search(r'<svg[^>]*\swidth="', svg)


def test_svg_is_deterministic():
    assert site_diagrams.figure_svg(two_bars(), "x") == site_diagrams.figure_svg(
        two_bars(), "x"
    )


def test_text_stays_text_at_the_site_font_size():
    svg = site_diagrams.figure_svg(two_bars(), "x")
    sizes = [float(s) for s in re.findall(r"font-size:\s*([\d.]+)px", svg)]
    assert sizes and min(sizes) >= diagrams.FONT_SIZE


def test_placeholder_becomes_marker_then_figure():
    store: list[str] = []
    md = expand('Text.\n\n<!-- diagram: snippets/x.py:f(1, k="a") "alt" -->\n', store)
    assert site_diagrams.MARKER.format(index=0) in md
    html = site_diagrams.place_diagrams(f"<p>{md}</p>", store)
    assert '<figure class="diagram"><svg' in html
    assert "<figcaption>alt</figcaption>" in html


def test_placeholder_inside_code_is_left_alone():
    store: list[str] = []
    md = '```\n<!-- diagram: snippets/x.py:f() "alt" -->\n```'
    assert expand(md, store) == md and store == []


def test_missing_alt_text_is_an_error_naming_the_page():
    with pytest.raises(ValueError, match=r"docs/page\.md: .*needs an alt text"):
        expand("<!-- diagram: snippets/x.py:f() -->", [])


def test_a_function_that_returns_no_figure_is_an_error():
    with pytest.raises(TypeError, match="not a matplotlib Figure"):
        expand('<!-- diagram: snippets/x.py:f() "alt" -->', [], lambda *a: 3)


def test_untinted_text_follows_the_theme_and_the_width_keeps_text_legible():
    # Matplotlib writes black text with no fill at all; the root's fill is
    # what turns tick labels and legends to the page's text colour.
    svg = site_diagrams.figure_svg(two_bars(), "x")
    root = svg[: svg.index(">")]
    assert "fill: currentColor" in root
    width = site_diagrams.min_width_px(svg)
    box = float(site_diagrams.VIEWBOX_RE.search(svg)["width"])
    smallest = min(float(m["size"]) for m in site_diagrams.FONT_SIZE_RE.finditer(svg))
    assert f"min-width: {width}px" in root
    assert smallest * width / box >= site_diagrams.MIN_TEXT_PX
    assert site_diagrams.min_width_px("<svg viewBox='0 0 10 10'></svg>") == 0
    # A narrow figure does not grow past 1.2 times its natural size.
    assert f"max-width: {site_diagrams.max_width_px(svg)}px" in root
    assert site_diagrams.max_width_px(svg) == int(box * 4 / 3 * 1.2)
    assert site_diagrams.max_width_px("<svg></svg>") == 0
