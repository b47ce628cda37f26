from snippets.memory_budgets_for_training.diagram import KINDS, zero_stage_bars


def test_one_stacked_bar_per_stage_and_kind():
    fig = zero_stage_bars("llama3-70b", "full")
    ax = fig.axes[0]
    assert len(ax.patches) == 4 * len(KINDS)
    assert len(ax.get_xticklabels()) == 4
