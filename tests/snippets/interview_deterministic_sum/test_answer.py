"""Different orders of the same float32 partials give different sums; one
fixed order gives the same bits every time."""

import numpy as np

from snippets.interview_deterministic_sum import answer as a


def test_orders_disagree_and_a_fixed_order_repeats():
    e = a.experiment()
    assert e["partials"] == -(-30011 // 256)
    assert 1 < e["distinct"] <= 20
    assert e["spread_ulps"] > 0
    assert e["fixed"].tobytes() == e["fixed_again"].tobytes()
    assert abs(float(e["fixed"]) - e["exact"]) < 1e-3


def test_combine_rounds_at_every_step():
    big, small = np.float32(2**24), np.float32(1)
    partials = [big, small, small]
    # 2**24 + 1 rounds back to 2**24 in float32; 1 + 1 first does not.
    assert a.combine(partials, [0, 1, 2]) == big
    assert a.combine(partials, [1, 2, 0]) == big + 2
