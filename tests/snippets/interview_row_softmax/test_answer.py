"""The row softmax exercise's numbers, recomputed by hand."""

import math

from snippets.interview_row_softmax import answer as a


def test_overflow_threshold():
    limit = a.exp_limit_float32()
    assert 88.7 < limit < 88.8
    assert a.overflows_without_max(89.0) and not a.overflows_without_max(88.0)


def test_padding_and_traffic():
    assert a.padded_lanes(100) == 28 and a.padded_lanes(128) == 0
    assert a.next_power_of_2(1) == 1 and a.next_power_of_2(129) == 256
    assert math.isclose(a.floor_s(2), 2 * 8192 * 1024 * 2 / 4.8e12)
    assert a.facts()["answer.online_ratio"] == "1.33×"
