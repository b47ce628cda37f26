import pytest

from snippets.lib import diagrams


def test_figure_is_transparent_and_sized():
    fig = diagrams.figure(5, 2)
    assert (fig.get_figwidth(), fig.get_figheight()) == (5, 2)
    assert fig.get_facecolor()[3] == 0


@pytest.mark.parametrize("size", [(0, 2), (8, 2), (4, -1), (4, 15)])
def test_figure_refuses_sizes_a_page_cannot_show(size):
    with pytest.raises(ValueError, match="_in must be"):
        diagrams.figure(*size)


def test_style_axes_draws_in_ink():
    ax = diagrams.figure(4, 2).add_subplot()
    diagrams.style_axes(ax, grid=True)
    assert ax.spines["left"].get_edgecolor()[:3] == (0, 0, 0)
    assert ax.xaxis.label.get_size() == diagrams.FONT_SIZE
