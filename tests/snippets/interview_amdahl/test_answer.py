"""Amdahl on a step, recomputed by hand."""

import math

from snippets.interview_amdahl import answer as a


def test_step_by_hand():
    w = a.worked()
    assert w["new_step_ms"] == 250 - 70 + 70 / 4
    assert math.isclose(w["overall"], 250 / w["new_step_ms"])
    assert math.isclose(w["cap"], 250 / 180)
    # 1.25 = 1 / (0.72 + 0.28 / s)  ->  s = 0.28 / 0.08
    assert math.isclose(w["required"], 3.5)
    assert math.isinf(w["stretch"])  # 1.4x lies above the 1.39x cap


def test_facts():
    f = a.facts()
    assert (f["answer.overall"], f["answer.cap"], f["answer.stretch"]) == (
        "1.27×",
        "1.39×",
        "∞",
    )
