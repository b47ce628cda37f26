"""The overlap lesson's scenarios and exercise answers."""

from snippets.overlapping_communication import worked as w
from snippets.overlapping_communication.timeline import scenario


def test_the_table_has_a_row_per_scenario():
    assert w.scenario_table().count("\n") == 1 + len(w.SCENARIOS)


def test_exercise_2_is_the_smallest_doubling_contention():
    c = w.contention_that_doubles_the_wait()
    calm = scenario(w.DDP_MIB)["exposed"]
    assert scenario(w.DDP_MIB, c)["exposed"] >= 2 * calm
    assert scenario(w.DDP_MIB, c - 0.01)["exposed"] < 2 * calm


def test_a_slow_call_makes_small_buckets_cost_more_than_default_ones():
    facts = w.facts()
    tiny = scenario(1e-6, alpha_s=w.SLOW_ALPHA_S)["exposed"]
    ddp = scenario(w.DDP_MIB, alpha_s=w.SLOW_ALPHA_S)["exposed"]
    assert tiny > ddp and facts["ex1.tiny"] == w.ms(tiny)
    assert facts["ddp.last_share"].endswith("%")
