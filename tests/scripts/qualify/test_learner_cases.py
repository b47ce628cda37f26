"""The learner trust level's case model (scripts/qualify/learner_cases.py):
inputs drawn from a seed, and the views that catch flat pointer arithmetic."""

import torch

from scripts.qualify.learner_cases import Case, Input, base_shape, build_case, view_of


def test_a_seed_replays_the_same_inputs_and_another_does_not():
    case = Case("c", (Input("x", (3, 5)), Input("y", (3, 5), fill="positive")), (3, 5))
    first, again, other = build_case(case, 7), build_case(case, 7), build_case(case, 8)
    assert all(torch.equal(first[k], again[k]) for k in first)
    assert not torch.equal(first["x"], other["x"])
    assert bool((first["y"] > 0).all())


def test_views_are_not_contiguous_and_have_the_logical_shape():
    for view in ("transposed", "step2"):
        spec = Input("x", (4, 6), view=view)
        seen = view_of(torch.zeros(base_shape(spec)), spec)
        assert tuple(seen.shape) == (4, 6) and not seen.is_contiguous(), view
