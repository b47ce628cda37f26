"""The steps as data: what matters most first, within the first run's budget."""

from scripts.device_run.__main__ import DEFAULT_BUDGET_S
from scripts.device_run.steps import STEPS


def test_steps_come_in_the_order_of_what_a_short_lease_must_bring_back():
    names = [s.name for s in STEPS]
    order = ["kernel-tests", "bench", "bench-compare", "qualify", "inductor"]
    assert names[: len(order)] == order
    assert [s.name for s in STEPS if not s.required] == [
        "serving",
        "sanitize",
        "qualify-corpus",
    ]


def test_the_required_steps_fill_the_first_run_and_leave_a_rerun():
    # 360 s of steps in a 900 s lease: start-up, transfers and a rerun of
    # the benchmark fit in the rest (scripts/device_run/README.md gives the
    # arithmetic).
    required = sum(s.limit_s for s in STEPS if s.required)
    assert required == DEFAULT_BUDGET_S <= 6 * 60
    assert all(0 < s.limit_s <= DEFAULT_BUDGET_S for s in STEPS)
    assert len({s.name for s in STEPS}) == len(STEPS)


def test_the_dry_run_runs_the_same_tools_as_the_gpu_run():
    for step in STEPS:
        assert step.dry[:3] == step.gpu[:3], step.name
        assert "--list" not in step.dry and "--help" not in step.dry, step.name
