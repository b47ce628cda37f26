"""The published device figures (kernels/devices.py)."""

import dataclasses

import pytest

from kernels.devices import (
    H200,
    KNOWN,
    DeviceFigures,
    Source,
    figure_names,
    figures_for,
    unsourced,
)


@pytest.mark.parametrize("name", ["NVIDIA H200", "H200"], ids=["full", "bare"])
def test_figures_for_matches_the_device_name(name):
    assert figures_for(name) is H200


@pytest.mark.parametrize(
    "name",
    ["NVIDIA H200 NVL", "NVIDIA H100 80GB HBM3", "NVIDIA XH200", "H200 x", "cpu", ""],
    ids=["h200-nvl", "h100", "prefix", "suffix", "cpu", "empty"],
)
def test_figures_for_an_unknown_device_is_none(name):
    # The NVL part has its own (lower) figures: it must not get the SXM ones.
    assert figures_for(name) is None


@pytest.mark.parametrize("figures", list(KNOWN.values()), ids=list(KNOWN))
def test_sparse_rate_is_twice_dense(figures):
    assert figures.bf16_sparse_flop_per_s == 2 * figures.bf16_dense_flop_per_s


@pytest.mark.parametrize("figures", list(KNOWN.values()), ids=list(KNOWN))
def test_every_figure_is_positive_and_sourced(figures):
    assert isinstance(figures, DeviceFigures)
    assert figures.sm_count > 0 and figures.memory_bytes > 0 and figures.l2_bytes > 0
    assert figures.source
    assert unsourced(figures) == []
    # Ridge points: the FLOPs per HBM byte at which a kernel stops being
    # memory bound. Positive, and higher for the faster number formats.
    ridges = [
        rate / figures.hbm_bytes_per_s
        for rate in (
            figures.fp32_flop_per_s,
            figures.bf16_dense_flop_per_s,
            figures.fp8_dense_flop_per_s,
        )
    ]
    assert all(ridge > 0 for ridge in ridges)
    assert ridges == sorted(ridges)


def test_h200_figures_are_the_datasheets():
    assert H200.hbm_bytes_per_s == 4.8e12
    assert H200.bf16_sparse_flop_per_s == 1979e12
    assert H200.fp8_dense_flop_per_s == 2 * H200.bf16_dense_flop_per_s
    assert H200.sm_count == 132
    assert round(H200.bf16_dense_flop_per_s / H200.hbm_bytes_per_s) == 206


@pytest.mark.parametrize("figures", list(KNOWN.values()), ids=list(KNOWN))
def test_every_figure_names_its_source(figures):
    assert unsourced(figures) == [], f"{figures.name}: no source for these figures"
    assert set(figures.sources) <= set(figure_names(figures)), "a source for no figure"


def test_a_figure_without_a_source_is_caught():
    # The known-bad input: the H200 with its memory figure's source dropped,
    # then with a source of a kind no one can check.
    sources = dict(H200.sources)
    del sources["memory_bytes"]
    assert unsourced(dataclasses.replace(H200, sources=sources)) == ["memory_bytes"]
    sources["memory_bytes"] = Source("a blog", "someone's table")
    assert unsourced(dataclasses.replace(H200, sources=sources)) == ["memory_bytes"]
    sources["memory_bytes"] = Source("datasheet", " ")
    assert unsourced(dataclasses.replace(H200, sources=sources)) == ["memory_bytes"]
    assert unsourced(dataclasses.replace(H200, sources={})) == figure_names(H200)


def test_h200_memory_is_the_devices_report_not_decimal_gigabytes():
    # nvidia-smi: 143,771 MiB. The datasheet's "141 GB" read as 141e9 bytes
    # would understate every capacity by about 6 %.
    assert H200.memory_bytes == 143_771 * 2**20 == 150_754_820_096
    assert H200.memory_bytes > 141 * 10**9
    assert "device report" == H200.sources["memory_bytes"].kind


def test_the_joined_source_names_each_document_once():
    assert H200.source.count(H200.sources["hbm_bytes_per_s"].document) == 1


def test_an_entry_in_the_old_style_imports_but_is_unsourced():
    # A device written with only the joined `source` string (the pattern
    # before per-figure sources) must not break the import, only this check.
    old = DeviceFigures(
        name="NVIDIA X",
        sm_count=1,
        memory_bytes=1,
        hbm_bytes_per_s=1.0,
        l2_bytes=1,
        bf16_dense_flop_per_s=1.0,
        fp8_dense_flop_per_s=2.0,
        fp32_flop_per_s=0.5,
        source="some datasheet",
    )
    assert old.source == "some datasheet"
    assert unsourced(old) == figure_names(old) and "sm_count" in unsourced(old)


def test_every_target_figure_has_a_source():
    from kernels.devices import TARGETS

    assert list(TARGETS) == ["sm_90a", "sm_100a", "sm_120a"]
    for limits in TARGETS.values():
        assert limits.shared_bytes_per_block <= limits.shared_bytes_per_sm
        assert limits.sm_count > 0 and limits.registers_per_thread == 255
    # Tensor memory only on datacenter Blackwell.
    assert [t.tensor_memory_bytes_per_sm > 0 for t in TARGETS.values()] == [
        False,
        True,
        False,
    ]


def test_a_target_figure_without_a_source_is_refused():
    # Known-broken: one figure's source missing.
    import dataclasses

    from kernels.devices import SM120A

    sources = {**SM120A.sources, "shared_bytes_per_block": ""}
    with pytest.raises(ValueError, match="no source for shared_bytes_per_block"):
        dataclasses.replace(SM120A, sources=sources)
