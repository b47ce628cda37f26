import pytest

from snippets.disaggregated_prefill_and_decode import split


def test_the_transfer_share_does_not_depend_on_a_long_prompts_length():
    link = split.LINKS["InfiniBand NDR, one 400 Gb/s port"]
    shares = [
        split.transfer_seconds(p, link) / split.prefill_seconds(p) for p in (2048, 8192)
    ]
    assert shares[0] == pytest.approx(shares[1])
    # 128 KiB/token x 989e12 FLOP/s / (2 x 8e9 x 50e9 B/s) = 0.162
    assert shares[0] == pytest.approx(131072 * 989.5e12 / (16e9 * 50e9), rel=1e-3)


def test_a_short_prompt_is_bound_by_the_weights():
    assert split.prefill_seconds(10) == split.prefill_seconds(20)
    assert "one read of the weights" in split.facts()["ex2_a"]
