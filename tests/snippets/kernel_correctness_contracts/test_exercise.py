"""The exercise's numbers (snippets/kernel_correctness_contracts/exercise.py),
checked against sampled ReLU outputs."""

import pytest
import torch

from snippets.kernel_correctness_contracts import exercise


def test_half_of_mixed_sign_relu_outputs_are_zero():
    g = torch.Generator().manual_seed(0)
    x, r = torch.randn(20_000, generator=g), torch.randn(20_000, generator=g)
    zero = (torch.relu(x + r) == 0).float().mean().item()
    assert zero == pytest.approx(exercise.luck_pass_chance(1, False), abs=0.02)
    positive = torch.relu(x.abs() + r.abs() + 1e-3)
    assert (positive == 0).sum() == 0 == exercise.luck_pass_chance(1, True)


def test_the_answer():
    assert exercise.unwritten_tail(257, 256) == 1
    assert exercise.luck_pass_chance(3, False) == 0.125
    assert exercise.luck_pass_chance(5, False, dirtied=True) == 0.0
    facts = exercise.facts()
    assert (facts["tail"], facts["mixed"], facts["positive"]) == ("1", "0.5", "0")
    assert facts["one-element-programs"] == "0"
    with pytest.raises(ValueError, match="unwritten"):
        exercise.luck_pass_chance(-1, True)
