"""snippets/backward_kernel/flash_backward.py: the recomputing Triton
backward against autograd under the interpreter, and its products against
attention.py's count."""

import inspect

import pytest
import torch

from snippets.backward_kernel import attention
from snippets.backward_kernel import flash_backward as fb


@pytest.mark.parametrize(
    "heads,seq,head_dim", [(1, 1, 16), (2, 37, 16), (1, 16, 32)],
    ids=["one-query", "ragged", "exact-tile"],
)  # fmt: skip
def test_matches_autograd(heads, seq, head_dim):
    assert fb.worst_gap(heads, seq, head_dim) < 1e-5


def test_runs_the_five_products_the_model_counts():
    source = inspect.getsource(fb.flash_backward_kernel.fn)
    assert source.count("tl.dot(") == attention.matrix_products(True)["backward"]


def test_a_stale_statistic_is_caught():
    q, k, v, do = (torch.randn(1, 20, 16) for _ in range(4))
    scores = q @ k.transpose(1, 2) / 4
    o = torch.softmax(scores, -1) @ v
    lse = torch.logsumexp(scores, -1)
    good = fb.flash_backward(q, k, v, o, do, lse)
    bad = fb.flash_backward(q, k, v, o, do, lse + 0.1)
    assert (good[0] - bad[0]).abs().max() > 1e-3


def test_refuses_a_head_dimension_the_tiles_cannot_hold():
    x = torch.zeros(1, 4, 12)
    with pytest.raises(ValueError, match="^head dimension must be a power of two"):
        fb.flash_backward(x, x, x, x, x, torch.zeros(1, 4))
