"""KV cache, batch and replicas, checked by hand and by Little's law."""

import math

from snippets.interview_kv_capacity import answer as a


def test_kv_bytes():
    assert a.kv_per_sequence() == 2 * 32 * 8 * 128 * 2 * 2000


def test_little_law_fixed_point_holds():
    L = a.in_flight(a.RATE)
    assert math.isclose(L, a.RATE * a.OUTPUT_TOKENS * a.step_s(L))
    assert L <= a.max_batch()


def test_the_doubled_rate_needs_a_second_replica():
    assert a.in_flight(40.0) is None
    assert a.max_rate() < 40.0 <= 2 * a.max_rate()
    assert a.replicas(40.0) == 2 and a.replicas(20.0) == 1


def test_facts():
    f = a.facts()
    assert f["answer.kv_token"] == "128 KiB"
    # By hand: what is left of the H200's memory after the weights, in whole
    # 2,000-token sequences of 2 x 32 layers x 8 heads x 128 x 2 bytes a token.
    left = a.H200.memory_bytes - a.weights_bytes()
    assert f["answer.max_batch"] == str(int(left // (2 * 32 * 8 * 128 * 2 * 2000)))
