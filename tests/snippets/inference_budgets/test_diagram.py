from snippets.inference_budgets.diagram import DECODE_BATCHES, prefill_decode_roofline


def test_roof_ridge_and_one_point_per_phase():
    ax = prefill_decode_roofline().axes[0]
    # roof, ridge line, one marker per decode batch, one for prefill
    assert len(ax.lines) == 2 + len(DECODE_BATCHES) + 1
    assert len(ax.texts) == 1 + len(DECODE_BATCHES) + 1
