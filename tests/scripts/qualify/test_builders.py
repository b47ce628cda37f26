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
