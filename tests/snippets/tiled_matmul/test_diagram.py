"""snippets/tiled_matmul/diagram.py: the tile of C and the strips it reads."""

import pytest

from snippets.lib.diagrams import ACCENT, SECOND
from snippets.tiled_matmul.diagram import tile_grid, tile_strips_figure


def colours(fig):
    from matplotlib.colors import to_hex

    return [to_hex(p.get_facecolor(), keep_alpha=False) for p in fig.axes[0].patches]


def test_one_tile_and_one_strip_each_of_a_and_b_are_highlighted():
    M, N, K = 3, 4, 2
    fig = tile_strips_figure(M=M, N=N, K=K, row=1, col=2)
    drawn = colours(fig)
    assert len(drawn) == M * N + M * K + K * N
    assert drawn.count(ACCENT) == 1  # the tile of C
    assert drawn.count(SECOND) == K + K  # its strip of A and its strip of B


def test_the_grid_counts_ragged_tiles_and_refuses_bad_input():
    assert tile_grid(4096, 4096, 128, 128) == (32, 32)
    assert tile_grid(130, 1, 128, 128) == (2, 1)
    with pytest.raises(ValueError, match="BM"):
        tile_grid(1, 1, 0, 1)
    with pytest.raises(ValueError, match="row, col"):
        tile_strips_figure(M=2, N=2, row=2, col=0)
