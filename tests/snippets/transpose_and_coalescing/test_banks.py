import math

import pytest

from snippets.transpose_and_coalescing import banks as b


def test_conflict_degree_by_hand():
    assert b.conflict_degree(list(range(32))) == 1
    assert b.conflict_degree([0, 32, 64]) == 3
    assert b.conflict_degree([5] * 32) == 1  # broadcast


@pytest.mark.parametrize("layout", list(b.LAYOUTS))
def test_every_layout_is_one_to_one(layout):
    place = b.LAYOUTS[layout]
    words = {place(r, c) for r in range(32) for c in range(32)}
    assert len(words) == 32 * 32


def test_degrees_and_costs():
    assert [b.column_degree(n) for n in b.LAYOUTS] == [32, 1, 1]
    assert [b.row_degree(n) for n in b.LAYOUTS] == [1, 1, 1]
    assert all(b.column_degree(n, col=7) == b.column_degree(n) for n in b.LAYOUTS)
    assert b.words_used("padded") == 32 * 33 - 1
    assert b.words_used("swizzled") == b.words_used("plain") == 1024
    assert b.bank_table().count("\n") == 4


def test_exercise_is_the_gcd():
    for pad in range(0, 9):
        assert b.exercise_answer(pad) == math.gcd(pad, 32)
    assert b.facts()["exercise.passes"] == "pad 0: 32, pad 1: 1, pad 2: 2, pad 4: 4"
