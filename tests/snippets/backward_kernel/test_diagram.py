"""snippets/backward_kernel/diagram.py: the drawn lines follow the model."""

from snippets.backward_kernel import diagram as d


def test_p_grows_with_the_square_and_l_with_the_length():
    p, lse = d.held_series(False), d.held_series(True)
    assert all(b / a == 4 for a, b in zip(p, p[1:], strict=False))
    assert all(b / a == 2 for a, b in zip(lse, lse[1:], strict=False))
    assert p[d.SEQ_LENGTHS.index(4096)] == 32.0  # 32 layers of 1 GiB


def test_figure_draws_three_lines():
    ax = d.held_figure().axes[0]
    assert len(ax.lines) == 3
