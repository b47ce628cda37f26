"""Link figures: per direction as stored, bidirectional as NVIDIA quotes."""

import pytest

from kernels import interconnects as ic


def test_the_datasheet_totals_are_the_two_directions_added():
    assert ic.NVLINK4_H200.bidirectional_bytes_per_s == 900e9
    assert ic.INFINIBAND_NDR.per_direction_bytes_per_s == 50e9
    # PCIe 5.0 x16 after 128b/130b: about 63 GB/s each way, 126 both
    assert ic.PCIE5_X16.per_direction_bytes_per_s == pytest.approx(63.0e9, rel=1e-2)


def test_every_link_names_its_source():
    for link in ic.LINKS.values():
        assert link.source and link.scope


def test_an_unknown_link_is_refused():
    with pytest.raises(ValueError, match="nvlink"):
        ic.link("ethernet-over-carrier-pigeon")
