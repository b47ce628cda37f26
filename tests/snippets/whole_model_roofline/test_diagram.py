from snippets.whole_model_roofline.diagram import MARKERS, layer_roofline


def test_every_op_of_both_phases_is_placed():
    ax = layer_roofline("llama3-8b").axes[0]
    assert len(ax.collections) == 5 * len(MARKERS)
