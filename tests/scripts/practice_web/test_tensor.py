"""The page's torch: views over one storage, and what the references use."""

import pytest

from scripts.practice_web import tensor
from scripts.practice_web.language import OutsideSubset


def test_views_share_storage_with_their_strides():
    x = tensor.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=tensor.float64)
    assert x.t().stride() == (1, 3) and not x.t().is_contiguous()
    assert x[..., ::2].tolist() == [[1.0, 3.0], [4.0, 6.0]]
    assert x[..., ::2].stride() == (3, 2)
    x.t()[0, 1] = 9.0
    assert x.tolist()[1][0] == 9.0


def test_what_the_references_compute():
    x = tensor.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tensor.float64)
    assert (x @ x.T).tolist() == [[5.0, 11.0], [11.0, 25.0]]
    assert x.mean(dim=-1, keepdim=True).tolist() == [[1.5], [3.5]]
    assert x.sum().item() == 10.0 and x.reshape(-1).cumsum(0).tolist() == [1, 3, 6, 10]
    rows = x.softmax(dim=-1).tolist()
    assert abs(sum(rows[0]) - 1.0) < 1e-15


def test_a_missing_function_is_refused_by_name():
    with pytest.raises(OutsideSubset, match="^torch.randn is outside"):
        tensor.randn(3)
