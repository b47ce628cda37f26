"""How the cases' inputs are built (scripts/qualify/builders.py)."""

import torch

from kernels.inputs import nonzero_randn
from scripts.qualify import builders
from snippets.kernel_correctness_contracts import adversarial


def test_inputs_are_the_shared_nonzero_values():
    """The cases draw from kernels.inputs: the same values the page's
    snippet shows, so the committed verdicts stay valid."""
    made = builders.random_values((5, 7), torch.float16, 11, True)
    assert torch.equal(
        made, nonzero_randn((5, 7), torch.float16, seed=11, positive=True)
    )
    assert torch.equal(made, adversarial.random_values((5, 7), torch.float16, 11, True))


def test_nan_payloads_are_in_x_in_residual_and_in_both():
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        x, r = builders.with_nan_payloads(101, dtype, 3)
        ints = {4: torch.int32, 2: torch.int16}[x.element_size()]
        width = 8 * x.element_size()
        patterns = {
            b - (1 << width) * (b >> (width - 1)) for b in builders.nan_patterns(dtype)
        }
        assert set(x.view(ints)[x.isnan()].tolist()) == patterns
        assert (x.isnan() & ~r.isnan()).any() and (r.isnan() & ~x.isnan()).any()
        assert (x.isnan() & r.isnan()).any()


def test_fresh_inputs_are_marked_and_error_values_have_spellings():
    spec = builders.fresh(adversarial.contiguous(torch.ones(2, 3)))
    assert spec["fresh"] and spec["stride"] == [3, 1] and spec["offset"] == 0
    assert builders.shape_spellings((4, 6), (6,)) == ("(4, 6)", "[4, 6]", "(6,)", "[6]")
