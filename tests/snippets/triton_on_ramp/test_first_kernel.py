"""The on-ramp's kernels under the interpreter."""

import torch

from snippets.triton_on_ramp import first_kernel as k


def test_add_matches_torch_at_awkward_sizes():
    for n in (1, 127, 128, 129, 1000):
        x, y = torch.randn(n), torch.randn(n)
        assert torch.equal(k.add(x, y), x + y)


def test_copy_reads_a_view_through_its_strides():
    base = torch.randn(8, 40)
    for view in (base, base.t(), base[:, ::2]):
        assert torch.equal(k.copy_rows(view), view)


def test_the_interpreter_names_the_power_of_two_rule():
    assert "power of 2" in k.interpreter_error()
