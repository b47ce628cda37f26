"""The collectives lesson's numbers."""

import pytest

from snippets.collectives_and_their_cost import worked as w
from snippets.lib.collectives import bandwidths, ring_seconds


def test_at_the_half_bandwidth_size_busbw_is_half_the_link():
    link = 450e9
    size = w.half_bandwidth_size(8, w.PREMISE_HOP_S, link)
    t = ring_seconds("all_reduce", 8, size, w.PREMISE_HOP_S, link)
    assert bandwidths("all_reduce", 8, size, t)["busbw"] == pytest.approx(link / 2)


def test_tables_and_facts():
    assert w.factor_table().count("\n") == 1 + 5
    assert "NVIDIA H200" in w.link_table()
    facts = w.facts()
    assert facts["ex1.ratio"] == "1.12" and float(facts["ex3.ratio"]) > 10
