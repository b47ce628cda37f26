"""The exercises as data: every case well formed, references callable."""

import torch

from scripts.practice.exercises import BY_NAME, EXERCISES


def test_names_and_folders_match():
    assert len(BY_NAME) == len(EXERCISES)
    for exercise in EXERCISES:
        assert exercise.folder.name == exercise.name.replace("-", "_")
        assert exercise.tolerance[0] in ("exact", "close")
        assert exercise.cases and all(c.inputs for c in exercise.cases)


def test_every_reference_runs_on_its_first_case():
    from scripts.practice.grader import build_case, expected

    for exercise in EXERCISES:
        case = exercise.cases[0]
        truth = expected(exercise, case, build_case(case, 0))
        assert tuple(truth.shape) == case.out_shape, exercise.name
        assert truth.dtype in (torch.float64, torch.int32, torch.uint8)
