"""The collective cost model: nccl-tests' bus factors, ring and tree times,
and the alpha-beta fit recovering a known line."""

import pytest

from snippets.lib import collectives as c


@pytest.mark.parametrize(
    "name, world, factor",
    [
        ("all_reduce", 2, 1.0),
        ("all_reduce", 8, 1.75),
        ("reduce_scatter", 8, 0.875),
        ("all_gather", 4, 0.75),
        ("all_to_all", 4, 0.75),
        ("broadcast", 8, 1.0),
    ],
)
def test_bus_factor_is_nccl_tests(name, world, factor):
    assert c.bus_factor(name, world) == factor


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="world"):
        c.bus_factor("all_reduce", 1)
    with pytest.raises(ValueError, match="collective"):
        c.bus_factor("gossip", 2)
    with pytest.raises(ValueError, match="seconds"):
        c.bandwidths("all_reduce", 2, 1, 0.0)


def test_ring_bus_bandwidth_reaches_the_link_for_large_messages():
    link = 100e9
    t = c.ring_seconds("all_reduce", 8, 2**34, 1e-6, link)
    assert c.bandwidths("all_reduce", 8, 2**34, t)["busbw"] == pytest.approx(
        link, rel=1e-3
    )


def test_tree_latency_grows_slower_than_the_ring():
    ring = c.ring_seconds("all_reduce", 64, 1024, 1e-5, 1e11)
    tree = c.tree_all_reduce_seconds(64, 1024, 1e-5, 1e11)
    assert tree < ring / 5


def test_the_fit_recovers_a_line_and_the_held_back_error_is_zero():
    points = [(s, 2e-5 + s / 5e9) for s in (1e3, 4e3, 16e3, 64e3, 256e3)]
    fit_points, held = c.split_held_back(points)
    assert [p[0] for p in held] == [4e3, 64e3]
    model = c.fit_alpha_beta(*zip(*fit_points, strict=True))
    assert model.alpha_s == pytest.approx(
        2e-5
    ) and model.beta_s_per_byte == pytest.approx(2e-10)
    assert max(c.relative_errors(model, *zip(*held, strict=True))) < 1e-9
    assert model.bus_bytes_per_s("all_reduce", 2) == pytest.approx(5e9)


def test_the_fit_refuses_one_size():
    with pytest.raises(ValueError, match="two or more"):
        c.fit_alpha_beta([1.0, 1.0], [1.0, 2.0])


def test_the_calculator_states_time_and_both_bandwidths():
    text = c.collective_time()
    assert "all_reduce of 256 MiB over 8 ranks" in text and "busbw" in text
    with pytest.raises(ValueError):
        c.collective_time(size_mib=0)


LINKS = (450e9, 50e9, 8)


def test_a_group_in_one_node_all_reduces_by_nvls_and_gathers_by_ring():
    nvls = c.group_wire("all_reduce", 8, 1e9, 8, LINKS)
    assert nvls["bytes"] == 1e9 and nvls["link"] == "NVLink (NVLS)"
    ring = c.group_wire("all_reduce", 8, 1e9, 8, LINKS, nvls=False)
    assert ring["bytes"] == pytest.approx(1.75e9)
    gather = c.group_wire("all_gather", 8, 1e9, 8, LINKS)
    assert gather["bytes"] == pytest.approx(7 / 8 * 1e9)


@pytest.mark.parametrize(
    "per_node, rails",
    [(1, 1), (2, 2), (4, 4), (8, 8)],
    ids=["one-gpu-a-node", "two", "four", "eight"],
)
def test_a_group_across_nodes_shares_its_ring_over_one_nic_per_gpu(per_node, rails):
    wire = c.group_wire("all_reduce", 32, 1e9, per_node, LINKS)
    bus = 2 * 31 / 32 * 1e9
    assert wire["bytes"] == pytest.approx(bus / rails)
    nvlink = bus * (per_node - 1) / per_node / 450e9
    assert wire["seconds"] == pytest.approx(max(bus / rails / 50e9, nvlink))
    assert wire["one_nic_seconds"] == pytest.approx(bus / 50e9)


@pytest.mark.parametrize("per_node", [0, 33, 2.5, True], ids=str)
def test_a_placement_that_cannot_be_is_refused(per_node):
    with pytest.raises(ValueError, match="per_node"):
        c.group_wire("all_reduce", 32, 1e9, per_node, LINKS)
