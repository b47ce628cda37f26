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


def test_the_links_are_the_shared_tables():
    """The audit's F19: one figure per link on the site. A re-typed 64 GB/s
    for PCIe (the raw rate, before 128b/130b encoding) would fail here."""
    from kernels.interconnects import INFINIBAND_NDR, NVLINK4_H200, PCIE5_X16

    shared = {
        link.per_direction_bytes_per_s
        for link in (NVLINK4_H200, INFINIBAND_NDR, PCIE5_X16)
    }
    assert set(split.LINKS.values()) == shared
    assert 64e9 not in split.LINKS.values()
    assert split.facts()["pcie"] == "63 GB/s"
