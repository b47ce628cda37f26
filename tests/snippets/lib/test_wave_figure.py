"""The waves diagram counts what the model counts."""


def test_waves_figure_draws_one_row_per_wave_and_the_idle_tail():
    from snippets.lib.wave_figure import waves_figure

    ax = waves_figure(140).axes[0]
    # Two busy bars and one idle bar (only the last wave is partial).
    assert len(ax.collections) == 3
    assert [t.get_text() for t in ax.texts] == ["132/132", "8/132"]
    assert len(waves_figure(264).axes[0].collections) == 2
