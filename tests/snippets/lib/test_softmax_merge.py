"""Softmax state merging: online states, merges in any grouping."""

import math

from snippets.lib.softmax_merge import (
    EMPTY,
    SoftmaxState,
    block_states,
    groupings,
    merge,
    merge_without_rescaling,
    reference_softmax,
    running_states,
    softmax_from_state,
)

SCORES = [1.0, 3.0, -2.0, 0.5, 4.0, 2.0, -1.0]


def close(a: SoftmaxState, b: SoftmaxState) -> bool:
    return a.max == b.max and math.isclose(a.sum, b.sum, rel_tol=1e-12)


def test_online_state_matches_full_softmax():
    states = running_states(SCORES)
    assert [s.max for s in states] == [1.0, 3.0, 3.0, 3.0, 4.0, 4.0, 4.0]
    final = states[-1]
    assert math.isclose(final.sum, sum(math.exp(x - 4.0) for x in SCORES))
    probs = softmax_from_state(SCORES, final)
    for ours, ref in zip(probs, reference_softmax(SCORES), strict=True):
        assert math.isclose(ours, ref, rel_tol=1e-12)
    # The empty state is an identity, even against another empty one.
    assert merge(EMPTY, EMPTY) == EMPTY
    assert merge(EMPTY, final) == final


def test_merging_in_any_grouping_gives_full_softmax():
    full = running_states(SCORES)[-1]
    # 4, 3 and 1 blocks: 120, 12 and 1 orders-and-bracketings.
    for block_size in (2, 3, 7):
        merged = groupings(block_states(SCORES, block_size))
        assert merged and all(close(state, full) for state in merged)


def test_merge_without_rescaling_is_rejected():
    full = running_states(SCORES)[-1]
    states = block_states(SCORES, 3)
    assert [s.max for s in states] == [3.0, 4.0, -1.0]
    assert not any(close(s, full) for s in groupings(states, merge_without_rescaling))
    # With one block there is nothing to rescale and the bug hides.
    (only,) = block_states(SCORES, 7)
    assert close(merge_without_rescaling(only, EMPTY), full)
