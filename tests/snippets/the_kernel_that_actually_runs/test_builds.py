"""What changed between two builds, and which timer saw it."""

import pytest

from snippets.the_kernel_that_actually_runs import builds


def test_each_timer_is_a_narrower_interval():
    names = list(builds.TIMERS)
    for wider, narrower in zip(names, names[1:], strict=False):
        assert builds.TIMERS[narrower] < builds.TIMERS[wider]
    assert builds.phases_seen(names[-1]) == ["kernel"]
    with pytest.raises(ValueError, match="timer"):
        builds.phases_seen("stopwatch")


def test_diff_reads_the_artifact():
    diff = builds.build_diff("fp32-unaligned", "fp32-aligned")
    before, after = diff["global memory instructions"]
    assert before == {"LDG.E": 16, "STG.E": 8}
    assert after == {"LDG.E.128": 4, "STG.E.128": 2}
    assert diff["registers"] == (30, 26)
    assert builds.build_diff("fp32-aligned", "fp32-aligned") == {}


def test_answer_by_hand():
    a = builds.what_changed()
    assert a["first_call_ratio"] == pytest.approx(950 / 38)
    assert a["warm_ratio"] == pytest.approx(9.1 / 8.9)
    assert a["kernel_faster"] is False
    # A warmed ratio outside the spread is a kernel claim.
    faster = {
        **builds.REPORT,
        "after": {**builds.REPORT["after"], "warm_median_us": 6.0},
    }
    assert builds.what_changed(faster)["kernel_faster"] is True
    facts = builds.facts()  # the page says "no kernel speedup is shown"
    assert facts["answer.first-call-ratio"] == "25×"
    assert facts["answer.registers-before"] == "30"


def test_texts():
    assert builds.facts()["report.before"].startswith("`fp32-unaligned`")
    with pytest.raises(KeyError, match="later"):
        builds.facts()["report.later"]
    assert builds.facts()["odd.ops"].startswith("`LDG.E` × 16")
    # The page says: like the unaligned build, not the aligned one.
    assert builds.facts()["odd.ops"] == builds.facts()["answer.ops-before"]
    assert builds.facts()["odd.ops"] != builds.facts()["aligned.ops"]
    assert builds.timers_table().count("yes") == 7
