"""The top-down summary, on hand-made events (no profiler run)."""

from types import SimpleNamespace

import pytest

from snippets.from_trace_to_kernel.record import PREFIX, STEP, phase_of, summarise


def event(name, parent=None, self_us=0.0, total_us=0.0):
    return SimpleNamespace(
        name=name,
        cpu_parent=parent,
        self_cpu_time_total=self_us,
        cpu_time_total=total_us,
    )


def fixture_events():
    step = event(STEP, total_us=100.0)
    fwd = event(PREFIX + "forward", step, total_us=40.0)
    bwd = event(PREFIX + "backward", step, total_us=50.0)
    opt = event(PREFIX + "optimizer", step, total_us=8.0)
    mm = event("aten::mm", bwd, self_us=30.0)
    inner = event("aten::copy_", mm, self_us=5.0)
    return [
        step,
        fwd,
        bwd,
        opt,
        mm,
        inner,
        event("aten::addmm", fwd, self_us=25.0),
        event("aten::mm", fwd, self_us=3.0),
        event("aten::mul_", opt, self_us=6.0),
        event("aten::zero_", step, self_us=2.0),
        event("outside"),
    ]


def test_phase_of_walks_up_to_the_range():
    events = fixture_events()
    assert phase_of(events[5]) == "backward"
    assert phase_of(events[9]) == STEP
    assert phase_of(events[10]) is None


def test_summary_sums_self_time_per_phase():
    summary = summarise(fixture_events())
    assert summary["step_total_us"] == 100.0
    phases = {p["name"]: p for p in summary["phases"]}
    assert phases["backward"]["self_us_of_ops"] == 35.0
    assert phases["backward"]["top_ops"][0] == {
        "name": "aten::mm",
        "calls": 1,
        "self_us": 30.0,
    }
    assert phases["forward"]["total_us"] == 40.0
    assert phases[STEP]["top_ops"][0]["name"] == "aten::zero_"


def test_no_step_range_is_an_error():
    with pytest.raises(ValueError, match="step"):
        summarise([event("aten::mm")])
