"""snippets/backward_kernel/attention_backward.py: both backwards against
autograd, and the products they run against attention.py's count."""

import pytest
import torch

from snippets.backward_kernel import attention
from snippets.backward_kernel import attention_backward as ab


@pytest.mark.parametrize("seq,head_dim", [(1, 4), (37, 16), (64, 8)])
def test_both_options_match_autograd(seq, head_dim):
    gaps = ab.worst_gaps(seq, head_dim)
    assert gaps["stored"] < 1e-12 and gaps["recomputed"] < 1e-12


@pytest.mark.parametrize("recompute", [False, True], ids=["stored", "recomputed"])
def test_products_match_the_model(recompute):
    q, k, v, do = (torch.randn(12, 4, dtype=torch.float64) for _ in range(4))
    fwd, bwd = ab.Products(), ab.Products()
    o, p, lse = ab.forward(q, k, v, fwd)
    kept = {"lse": lse} if recompute else {"p": p}
    ab.backward(q, k, v, o, do, products=bwd, **kept)
    expected = attention.matrix_products(recompute)
    assert (fwd.count, bwd.count) == (expected["forward"], expected["backward"])
    assert bwd.flops == expected["backward"] * 2 * 12 * 12 * 4


def test_the_row_term_is_softmax_backwards_dot():
    # rowsum(dO * O) == rowsum(dP * P): the S-wide sum becomes a D-wide one.
    q, k, v, do = (torch.randn(9, 5, dtype=torch.float64) for _ in range(4))
    o, p, _ = ab.forward(q, k, v)
    dp = do @ v.T
    assert torch.allclose((do * o).sum(1), (dp * p).sum(1))


def test_a_wrong_statistic_is_caught():
    q, k, v, do = (torch.randn(9, 5, dtype=torch.float64) for _ in range(4))
    o, _, lse = ab.forward(q, k, v)
    truth = ab.autograd_reference(q, k, v, do)
    wrong = ab.backward(q, k, v, o, do, lse=lse + 0.1)  # a stale max, say
    assert (wrong[0] - truth[0]).abs().max() > 1e-3
