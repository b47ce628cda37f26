"""The error bounds kernels/bounds.py gives the runner and the evaluator."""

import pytest
import torch

from kernels.bounds import EPS32, elementwise, eps, exact


@pytest.mark.parametrize(
    "dtype, ulp",
    [(torch.float32, 2.0**-23), (torch.float16, 2.0**-10), (torch.bfloat16, 2.0**-7)],
    ids=["float32", "float16", "bfloat16"],
)
def test_eps_is_one_ulp_at_one(dtype, ulp):
    assert eps(dtype) == ulp
    assert (torch.tensor(1.0, dtype=dtype) + ulp).item() > 1.0


def test_eps32_is_float32s_ulp():
    assert EPS32 == eps(torch.float32) == 2.0**-23


def test_elementwise_bound_is_two_ulps_of_the_truth():
    truth = torch.tensor([-3.0, 0.0, 0.5, 1024.0], dtype=torch.float64)
    bound = elementwise((), truth, torch.bfloat16, {"numel": 4})
    assert bound.tolist() == [6 * 2.0**-7, 0.0, 2.0**-7, 2048 * 2.0**-7]
    assert bound.dtype == torch.float64


def test_elementwise_bound_catches_one_rounding_too_many():
    # Known-wrong: an answer three ulps off fails the two-ulp bound.
    truth = torch.ones(3, dtype=torch.float64)
    bound = elementwise((), truth, torch.float32, {"numel": 3})
    assert ((truth * (1 + 2 * EPS32) - truth).abs() <= bound).all()
    assert not ((truth * (1 + 3 * EPS32) - truth).abs() <= bound).any()


def test_exact_bound_allows_nothing():
    truth = torch.tensor([[1.5, -2.0], [0.0, 7.0]], dtype=torch.float64)
    bound = exact((), truth, torch.float32, {"rows": 2, "cols": 2})
    assert bound.shape == truth.shape and bound.dtype == truth.dtype
    assert not bound.any()
