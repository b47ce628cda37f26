from snippets.measure_collectives.diagram import fit_plot
from snippets.measure_collectives.project import committed_run, fit


def test_fitted_and_held_back_points_and_the_line():
    f = fit(committed_run())
    fitted, held, line = fit_plot().axes[0].lines
    assert len(fitted.get_xdata()) == len(f["fit_sizes"])
    assert len(held.get_xdata()) == len(f["held_back_sizes"])
    assert len(line.get_xdata()) == len(f["fit_sizes"]) + len(f["held_back_sizes"])
