"""The steps as data: cheapest evidence first, and within the time limits."""

from scripts.device_run.__main__ import DEFAULT_BUDGET_S
from scripts.device_run.steps import STEPS


def test_steps_come_in_the_issue_order():
    names = [s.name for s in STEPS]
    order = ["kernel-tests", "qualify", "sanitize", "bench", "serving"]
    assert [n for n in names if n in order] == order


def test_the_limits_fit_one_command_and_leave_a_rerun():
    assert DEFAULT_BUDGET_S <= 9 * 60
    assert all(0 < s.limit_s <= DEFAULT_BUDGET_S for s in STEPS)
    assert len({s.name for s in STEPS}) == len(STEPS)
