"""snippets/backward_kernel/interpreter.py: the Triton gradient against
autograd, under the interpreter."""

import pytest
import torch

from snippets.backward_kernel import interpreter as it


@pytest.mark.parametrize("rows,cols", it.SHAPES, ids=lambda v: str(v))
def test_the_kernel_matches_autograd(rows, cols):
    gap, largest = it.check_against_autograd(rows, cols)
    # float32 math on float32 y and dy: a few ulps of the largest term.
    assert gap <= 1e-6 * max(largest, 1e-30) + 1e-12


def test_saved_tensor_is_the_output():
    x = torch.randn(2, 5, requires_grad=True)
    y = it.TritonSoftmax.apply(x)
    assert torch.equal(y.grad_fn.saved_tensors[0], y.detach())


def test_a_wrong_gradient_is_caught(monkeypatch):
    # A backward that forgets the row's dot product: dx = y * dy.
    monkeypatch.setattr(it, "softmax_backward", lambda y, dy: y * dy)
    gap, largest = it.check_against_autograd(3, 17)
    assert gap > 1e-3 * largest


def test_a_bare_kernel_call_carries_no_gradient_history():
    # Why the Function exists: the kernel's output is a fresh tensor.
    x = torch.randn(2, 5, requires_grad=True)
    assert not it.softmax(x).requires_grad
    assert it.TritonSoftmax.apply(x).requires_grad
