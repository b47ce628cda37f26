"""snippets/backward_kernel/gradient.py: the fused formula against the
Jacobian and against finite differences."""

import random

import pytest

from snippets.backward_kernel import gradient as g


@pytest.mark.parametrize("n", [1, 2, 7, 40])
def test_fused_formula_equals_the_jacobian_product(n):
    rng = random.Random(n)
    x = [rng.uniform(-5, 5) for _ in range(n)]
    dy = [rng.uniform(-1, 1) for _ in range(n)]
    y = g.softmax(x)
    assert g.worst_gap(g.grad_fused(y, dy), g.grad_by_jacobian(y, dy)) < 1e-15
    assert g.worst_gap(g.grad_fused(y, dy), g.grad_by_finite_differences(x, dy)) < 1e-8


def test_the_gradient_sums_to_zero():
    # Adding a constant to every score leaves softmax unchanged.
    y = g.softmax(g.SCORES)
    assert abs(sum(g.grad_fused(y, g.DY))) < 1e-15


def test_a_wrong_formula_is_caught():
    # Forgetting the row's dot product: dx = y * dy.
    y = g.softmax(g.SCORES)
    wrong = [a * b for a, b in zip(y, g.DY, strict=True)]
    assert g.worst_gap(wrong, g.grad_by_finite_differences(g.SCORES, g.DY)) > 1e-2


def test_facts():
    facts = g.facts()
    assert facts["dx"].count(",") == len(g.SCORES) - 1
    assert float(facts["fd-gap"]) < 1e-8 and float(facts["jacobian-gap"]) < 1e-15
