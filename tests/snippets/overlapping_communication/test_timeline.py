"""The overlap timeline: a single bucket cannot overlap, free communication
costs nothing, contention and late starts only ever cost time."""

import pytest

from snippets.overlapping_communication import timeline as t


def comm_at(rate, alpha=0.0):
    return lambda n: alpha + n / rate


def test_one_bucket_waits_for_the_whole_backward():
    tl = t.backward_timeline([1.0, 1.0], [10, 10], 1e9, comm_at(10.0))
    assert len(tl["buckets"]) == 1 and tl["exposed"] == pytest.approx(2.0)


def test_per_layer_buckets_hide_all_but_the_last():
    tl = t.backward_timeline([1.0, 1.0, 1.0], [5, 5, 5], 5, comm_at(10.0))
    assert [b.start for b in tl["buckets"]] == [1.0, 2.0, 3.0]
    assert tl["exposed"] == pytest.approx(0.5)


def test_contention_slows_the_layers_beside_an_all_reduce():
    calm = t.backward_timeline([1.0, 1.0], [10, 10], 10, comm_at(10.0))
    busy = t.backward_timeline([1.0, 1.0], [10, 10], 10, comm_at(10.0), contention=1.0)
    # layer 1 runs at half speed while bucket 0's all-reduce (1 s) overlaps it
    assert (
        busy["layers"][1].end == pytest.approx(2.5)
        and busy["exposed"] > calm["exposed"]
    )


def test_a_late_start_costs_only_when_the_stream_was_idle():
    tl = t.backward_timeline([1.0, 1.0], [1, 1], 1, comm_at(10.0), launch_delay_s=0.5)
    assert tl["buckets"][0].start == pytest.approx(1.5)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="bucket_bytes"):
        t.backward_timeline([1.0], [1], 0, comm_at(1.0))
    with pytest.raises(ValueError, match="contention"):
        t.backward_timeline([1.0], [1], 1, comm_at(1.0), contention=-0.1)


def test_llama_8b_bucket_sizes():
    one = t.scenario(bucket_mib=1e6)
    ddp = t.scenario()
    assert len(one["buckets"]) == 1 and one["exposed"] == pytest.approx(
        one["communication"]
    )
    assert ddp["exposed"] < one["exposed"] / 5
    assert "buckets" in t.overlap()
