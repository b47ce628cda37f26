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


def test_the_values_are_judged_by_the_exercises_own_tolerance():
    import dataclasses

    exercise = BY_NAME["relu-scale"]
    truth = tensor.tensor([0.0023623, 1.0], dtype=tensor.float64)
    out = truth.to(tensor.float32)  # float32's rounding of the reference
    assert diagnose.value_problem(exercise, out, truth) is None
    tight = dataclasses.replace(exercise, tolerance=("close", 0.0, 1e-9))
    assert "1 of 2 elements are off" in diagnose.value_problem(tight, out, truth)


def test_relu_scales_solution_passes_on_every_seed_that_an_atol_of_0_failed():
    from scripts.practice_web import grade

    exercise = BY_NAME["relu-scale"]
    source = (exercise.folder / "solution.py").read_text()
    for seed in (0, 5, 7, 8, 9, 13):
        report = grade.check(exercise, source, "solution.py", seed=seed)
        assert all(o.passed for o in report.outcomes), (seed, report.outcomes)
