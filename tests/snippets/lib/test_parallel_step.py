import pytest

from kernels.devices import H200
from snippets.lib.parallel_step import compute_seconds


def test_six_flops_per_parameter_per_token():
    t = compute_seconds(10**9, 1000, 2, mfu=0.5)
    assert t == pytest.approx(6e12 / (2 * 0.5 * H200.bf16_dense_flop_per_s))
    with pytest.raises(ValueError, match="mfu"):
        compute_seconds(1, 1, 1, mfu=0)
