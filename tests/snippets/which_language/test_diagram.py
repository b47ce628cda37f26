"""snippets/which_language/diagram.py: the picture is the grid."""

from snippets.which_language import diagram, languages


def test_one_cell_per_decision_and_language():
    cells = diagram.grid_cells()
    assert len(cells) == len(languages.GRID) * len(languages.LANGUAGES)


def test_filled_cells_are_the_authors_decisions():
    column = languages.LANGUAGES.index("Gluon")
    row = list(languages.GRID).index("the exact instruction")
    assert (row, column, False) in diagram.grid_cells()
    assert (0, languages.LANGUAGES.index("Triton"), True) in diagram.grid_cells()


def test_the_figure_draws_every_cell():
    ax = diagram.grid_figure().axes[0]
    assert len(ax.patches) == len(diagram.grid_cells())
