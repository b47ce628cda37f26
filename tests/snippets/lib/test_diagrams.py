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


@pytest.mark.parametrize(
    "value, text",
    [(0.01, "0.01"), (1, "1"), (100, "100"), (1e3, "1k"), (1e4, "10k"),
     (1e6, "1M"), (16, "16"), (4096, "4,096")],
)  # fmt: skip
def test_plain_number_writes_ticks_as_a_reader_does(value, text):
    assert diagrams.plain_number(value) == text


def test_plain_log_ticks_are_plain_text_at_the_site_size():
    ax = diagrams.figure(4, 2).add_subplot()
    diagrams.style_axes(ax)
    ax.set_xscale("log")
    ax.set_xlim(0.01, 1e4)
    diagrams.plain_log_ticks(ax.xaxis, [0.01, 1, 100, 1e4])
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["0.01", "1", "100", "10k"]  # no $10^{...}$ math text
    assert not ax.xaxis.get_minorticklocs().size
