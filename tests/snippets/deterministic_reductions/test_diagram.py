import pytest

from snippets.deterministic_reductions import diagram


def test_levels_match_the_two_stage_tree():
    assert [len(level) for level in diagram.tree_levels(16, 4)] == [16, 8, 4, 2, 1]
    assert [len(level) for level in diagram.tree_levels(8, 8)] == [8, 4, 2, 1]
    with pytest.raises(ValueError):
        diagram.tree_levels(0, 4)


def test_figure_draws_a_node_per_value_and_two_edges_per_addition():
    fig = diagram.tree_figure(16, 4)
    ax = fig.axes[0]
    assert len(ax.collections) == 16 + 8 + 4 + 2 + 1
    assert len(ax.lines) == 2 * 15  # 15 additions combine 16 values
