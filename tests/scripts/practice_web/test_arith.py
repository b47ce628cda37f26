"""IEEE arithmetic where Python raises, broadcasting, numpy's sum order."""

import math

import pytest

from scripts.practice_web import arith


def test_ieee_where_python_raises():
    assert arith.div(1.0, 0.0) == math.inf and math.isnan(arith.div(0.0, 0.0))
    assert arith.exp(1000.0) == math.inf and math.isnan(arith.sqrt(-1.0))
    assert arith.log(0.0) == -math.inf
    assert arith.int_div(-7, 2) == -3 and arith.int_mod(-7, 2) == -1


def test_broadcasting_follows_numpy_and_names_the_shapes():
    assert arith.broadcast_shape((4, 1), (1, 3)) == (4, 3)
    assert arith.expand([1, 2], (2, 1), (2, 3)) == [1, 1, 1, 2, 2, 2]
    with pytest.raises(ValueError, match=r"\[2\] and \[3\]"):
        arith.broadcast_shape((2,), (3,))


def test_pairwise_sum_is_numpys_order():
    np = pytest.importorskip("numpy")
    values = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    f32 = lambda v: float(np.float32(v))  # noqa: E731
    assert arith.pairwise_sum([float(v) for v in values], f32) == float(values.sum())
    in_order = 0.0
    for v in values:
        in_order = f32(in_order + float(v))
    assert in_order != float(values.sum())  # the order matters, so this check can fail
