"""Rounding, wrapping and promotion as Triton does them."""

from scripts.practice_web import dtypes


def test_float32_rounds_to_nearest_and_overflows_to_inf():
    assert dtypes.rounder(dtypes.float32)([0.1]) == [0.10000000149011612]
    assert dtypes.rounder(dtypes.float32)([1e39]) == [float("inf")]


def test_integers_wrap_and_casts_truncate():
    assert dtypes.rounder(dtypes.int32)([2**31, -(2**31) - 1]) == [-(2**31), 2**31 - 1]
    assert dtypes.rounder(dtypes.uint8)([256 + 7]) == [7]
    assert dtypes.float_to_int(-2.7) == -2


def test_promotion():
    assert dtypes.promote(dtypes.int32, dtypes.int64) is dtypes.int64
    assert dtypes.promote(dtypes.int32, dtypes.float32) is dtypes.float32
    assert dtypes.weak_promote(dtypes.int32, 0.5) is dtypes.float32
    assert dtypes.weak_promote(dtypes.float32, 3) is dtypes.float32
    assert dtypes.of_python(2**31) is dtypes.int64
