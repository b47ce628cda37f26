from snippets.transpose_and_coalescing import diagram
from snippets.transpose_and_coalescing.banks import words_used


def test_column_cells_land_where_the_layouts_say():
    assert {bank for _, bank in diagram.column_cells("plain", 8, 1)} == {1}
    assert len({bank for _, bank in diagram.column_cells("padded", 8, 1)}) == 8
    assert len({bank for _, bank in diagram.column_cells("swizzled", 8, 1)}) == 8


def test_figure_draws_every_word_and_fills_one_column():
    fig = diagram.bank_map_figure(8)
    assert len(fig.axes) == 3
    for ax, name in zip(fig.axes, ("plain", "padded", "swizzled"), strict=True):
        words = -(-words_used(name, 8) // 8) * 8
        assert len(ax.patches) == words
        filled = [p for p in ax.patches if p.get_alpha() == 1.0]
        assert len(filled) == 8
