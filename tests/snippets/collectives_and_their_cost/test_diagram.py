from snippets.collectives_and_their_cost.diagram import bus_bandwidth_curves


def test_three_curves_below_the_link_line():
    ax = bus_bandwidth_curves().axes[0]
    link = ax.lines[-1].get_ydata()[0]
    curves = ax.lines[:3]
    assert len(curves) == 3
    assert all(max(line.get_ydata()) < link for line in curves)
