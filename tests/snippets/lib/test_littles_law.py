"""Little's law (snippets/lib/littles_law.py) by hand."""

import math

from snippets.lib import littles_law as law


def test_the_law_and_its_inverse():
    assert law.in_flight(10.0, 1.5) == 15.0
    assert law.sustained_rate(15.0, 1.5) == 10.0


def test_a_time_that_grows_with_the_load_has_a_fixed_point():
    L = law.in_flight_when_time_grows(2.0, fixed_s=1.0, per_request_s=0.25)
    assert L == 4.0  # 2 req/s x (1 + 0.25 x 4) s = 4
    assert math.isclose(L, law.in_flight(2.0, 1.0 + 0.25 * L))


def test_no_fixed_point_when_each_request_adds_a_whole_interval():
    assert law.in_flight_when_time_grows(4.0, fixed_s=1.0, per_request_s=0.25) is None


def test_replicas_round_up_after_headroom():
    assert law.replicas_for(10.0, 4, 0.5) == 5
    assert law.replicas_for(8.0, 4) == 2 and law.replicas_for(8.01, 4) == 3
