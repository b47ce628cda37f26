"""Hillis-Steele, Blelloch and reduce-then-scan models against a plain scan."""

import random

import pytest

from snippets.parallel_prefix_scan.prefix_scan import (
    blelloch_adds,
    blelloch_steps,
    exclusive_scan,
    fmt_exclusive,
    hillis_steele_adds,
    hillis_steele_steps,
    inclusive_scan,
    reduce_then_scan,
)

SIZES = [1, 2, 3, 6, 7, 8, 9, 31, 33]


def test_inclusive_and_exclusive_scan():
    assert inclusive_scan([3, 0, 2, 1, 0, 4]) == [3, 3, 5, 6, 6, 10]
    assert exclusive_scan([3, 0, 2, 1, 0, 4]) == [0, 3, 3, 5, 6, 6]
    assert inclusive_scan([]) == exclusive_scan([]) == []


@pytest.mark.parametrize("n", SIZES, ids=lambda n: f"n={n}")
def test_hillis_steele_is_an_inclusive_scan(n):
    values = [random.Random(n).randint(-5, 9) for _ in range(n)]
    steps = hillis_steele_steps(values)
    assert steps[0] == (0, values)
    assert steps[-1][1] == inclusive_scan(values)
    # Distances double; after the step with distance d, element i holds
    # the sum of the (up to) 2d elements ending at i.
    for d, array in steps[1:]:
        window = 2 * d
        expected = [sum(values[max(0, i - window + 1) : i + 1]) for i in range(n)]
        assert array == expected
    assert hillis_steele_adds(n) == sum(n - d for d, _ in steps[1:])


@pytest.mark.parametrize("n", SIZES, ids=lambda n: f"n={n}")
def test_blelloch_is_an_exclusive_scan(n):
    values = [random.Random(n).randint(-5, 9) for _ in range(n)]
    steps = blelloch_steps(values)
    padded = steps[0][1]
    assert len(padded) >= n and len(padded) & (len(padded) - 1) == 0
    up = [array for label, array in steps if label.startswith("up-sweep")]
    if up:  # the root holds the total after the up-sweep
        assert up[-1][-1] == sum(values)
    assert steps[-1][1][:n] == exclusive_scan(values)
    assert blelloch_adds(n) == 2 * (len(padded) - 1)


def test_blelloch_does_linear_work_and_hillis_steele_does_not():
    assert blelloch_adds(1024) == 2046
    assert hillis_steele_adds(1024) == 1024 * 10 - 1023
    assert hillis_steele_adds(1 << 20) > 9 * blelloch_adds(1 << 20)


@pytest.mark.parametrize("block_size", [1, 3, 4, 16], ids=lambda b: f"block={b}")
def test_reduce_then_scan_matches_a_sequential_scan(block_size):
    values = [random.Random(block_size).randint(0, 9) for _ in range(10)]
    phases = reduce_then_scan(values, block_size)
    assert phases["result"] == inclusive_scan(values)
    assert phases["carries"] == exclusive_scan(phases["totals"])
    assert sum(len(block) for block in phases["blocks"]) == len(values)


def test_reduce_then_scan_rejects_a_bad_block_size():
    with pytest.raises(ValueError, match="block_size must be at least 1, got 0"):
        reduce_then_scan([1, 2], 0)


def test_exercise_answers_come_from_the_scans():
    # Sizes 2, 0, 3, 1, 4: starts are the running totals before each program.
    assert fmt_exclusive([2, 0, 3, 1, 4]) == (
        "program 0 at 0, program 1 at 2, program 2 at 2, program 3 at 5, "
        "program 4 at 6; 10 values in all"
    )
    from snippets.parallel_prefix_scan.prefix_scan import facts

    given = facts()
    assert (given["adds.hillis-steele"], given["adds.blelloch"]) == ("9,217", "2,046")
    assert given["adds.sequential"] == "1,023"
