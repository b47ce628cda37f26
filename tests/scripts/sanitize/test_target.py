import pytest

from scripts.sanitize.target import main, run_target


def test_planted_and_kernel_targets_run_on_the_cpu():
    assert "equals reference: True" in run_target("planted:clean", device="cpu")
    text = run_target("kernel:residual_add_relu", device="cpu")
    assert "3×1031" in text


def test_bad_targets():
    with pytest.raises(ValueError, match="planted"):
        run_target("planted:nope", device="cpu")
    with pytest.raises(ValueError, match="kernel"):
        run_target("kernel:nope", device="cpu")
    with pytest.raises(ValueError, match="target must be"):
        run_target("other", device="cpu")
    assert main([]) == 2
