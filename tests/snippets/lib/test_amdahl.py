"""Amdahl's law as the lesson states it."""

import math

import pytest

from snippets.lib import amdahl


def test_opening_example_caps_at_one_point_two_five():
    assert amdahl.speedup_cap(0.2) == pytest.approx(1.25)
    assert amdahl.overall_speedup(0.2, math.inf) == pytest.approx(1.25)
    assert amdahl.fmt_cap(0.2) == "1.25×"


@pytest.mark.parametrize("fraction", [0.0, 0.05, 0.3, 0.5, 0.95])
@pytest.mark.parametrize("speedup", [1.0, 1.5, 4.0, 100.0])
def test_overall_speedup_matches_the_timeline_it_models(fraction, speedup):
    total = 10.0
    new_total = total * (1 - fraction) + total * fraction / speedup
    assert amdahl.overall_speedup(fraction, speedup) == pytest.approx(total / new_total)
    assert amdahl.overall_speedup(fraction, speedup) <= amdahl.speedup_cap(fraction)


@pytest.mark.parametrize("fraction", [0.2, 0.5, 0.8])
@pytest.mark.parametrize("target", [1.05, 1.1, 1.2])
def test_required_speedup_inverts_overall_speedup(fraction, target):
    needed = amdahl.required_kernel_speedup(fraction, target)
    assert amdahl.overall_speedup(fraction, needed) == pytest.approx(target)


def test_target_at_or_past_the_cap_has_no_finite_answer():
    assert math.isinf(amdahl.required_kernel_speedup(0.2, 1.25))
    assert math.isinf(amdahl.required_kernel_speedup(0.2, 2.0))


def test_headroom_is_cap_over_current():
    assert amdahl.remaining_headroom(0.2, 5.0) == pytest.approx(
        1.25 / amdahl.overall_speedup(0.2, 5.0)
    )
    assert amdahl.remaining_headroom(0.5, math.inf) == pytest.approx(1.0)


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_fraction_outside_zero_one_is_rejected(bad):
    with pytest.raises(ValueError, match="kernel_fraction"):
        amdahl.overall_speedup(bad, 2.0)


def test_exercise_answers_follow_from_the_givens():
    ex = amdahl.exercise()
    assert ex["fraction"] == pytest.approx(0.3)
    assert ex["cap"] == pytest.approx(1 / 0.7)
    assert ex["new_step_ms"] == pytest.approx(32.0)
    assert ex["overall"] == pytest.approx(40.0 / 32.0)
    assert amdahl.overall_speedup(0.3, ex["required"]) == pytest.approx(1.3)


def test_table_has_a_row_per_fraction_and_ends_at_the_cap():
    table = amdahl.speedup_table().strip().splitlines()
    assert len(table) == 2 + len(amdahl.TABLE_FRACTIONS)
    row_20 = next(line for line in table if line.startswith("| 20% |"))
    assert row_20.rstrip(" |").endswith("1.25×")


def test_facts_format_every_exercise_value_for_prose():
    values = amdahl.facts()
    exercise = {k for k in values if k.startswith("exercise.")}
    assert exercise == {f"exercise.{k}" for k in amdahl.exercise()}
    assert set(values) - exercise == set(amdahl.page_facts())
    assert values["exercise.fraction"].endswith("%")
    assert values["exercise.cap"].endswith("×")
    assert values["exercise.step_ms"].endswith(" ms")
