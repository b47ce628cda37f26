from snippets.fusion_residual_add_relu import diagram
from snippets.fusion_residual_add_relu.traffic import intermediate_fits_l2


def test_curves_follow_the_model():
    hbm = diagram.curve(2, 4.0, tmp_in_l2=False)
    l2 = diagram.curve(2, 4.0, tmp_in_l2=True)
    assert len(hbm) == 21
    assert all(intermediate_fits_l2(n, 2) for n, _ in l2)
    assert len(l2) < len(hbm)


def test_figure_draws_two_curves_and_two_limits():
    fig = diagram.speedup_figure()
    ax = fig.axes[0]
    assert len(ax.lines) == 4
    assert {t.get_text() for t in ax.texts} == {
        "launch-bound limit: 2×",
        "byte limit: 5/3×",
    }
