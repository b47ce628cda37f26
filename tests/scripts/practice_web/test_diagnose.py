"""The CLI's value checks and conditions on the page's tensors."""

from scripts.practice.exercises import BY_NAME
from scripts.practice_web import diagnose, tensor


def test_never_written_names_the_ranges():
    out = tensor.tensor([0.0, 7.0, 7.0, 1.0, 7.0], dtype=tensor.float32)
    assert diagnose.never_written(out, 7.0) == (
        "elements 1..2, 4 were never written (still the sentinel fill)"
    )
    assert diagnose.never_written(out, 5.0) is None


def test_close_and_exact():
    exercise = BY_NAME["vector-add"]  # exact
    out = tensor.tensor([1.0, 2.0], dtype=tensor.float32)
    assert diagnose.value_problem(exercise, out, out.to(tensor.float64)) is None
    off = tensor.tensor([1.0, 2.000001], dtype=tensor.float64)
    assert "1 of 2 elements are off" in diagnose.value_problem(exercise, out, off)


def test_a_few_ulps_is_seen_and_a_real_error_is_not():
    assert diagnose.within_ulps([1.0000001], [1.0])  # one float32 ulp
    assert not diagnose.within_ulps([1.01], [1.0])
