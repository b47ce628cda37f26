import pytest

from snippets.capacity_planning import capacity
from snippets.lib.serving.simulator import StepTime


@pytest.fixture
def few_seeds(monkeypatch):
    """Three seeds and four loads keep the test fast; the page runs them all."""
    monkeypatch.setattr(capacity, "SEEDS", (0, 1, 2))
    monkeypatch.setattr(capacity, "LOADS", (50, 100, 150, 200))


def test_faster_kernels_scale_only_kernel_work():
    # On the CPU reading the per-sequence Python loop and the fixed part stay.
    assert capacity.faster_kernels(StepTime(1.0, 2.0, 4.0), 2.0) == StepTime(
        1.0, 2.0, 2.0
    )
    # On a GPU the fixed part (reading the weights) is kernel work too.
    assert capacity.faster_kernels(
        StepTime(1.0, 2.0, 4.0), 2.0, fixed_is_kernel=True
    ) == StepTime(0.5, 2.0, 2.0)


def test_faster_kernels_never_lower_the_supported_load():
    base = capacity.measured_step_time()
    faster = capacity.faster_kernels(base, 2.0, fixed_is_kernel=True)
    assert capacity.max_load(faster, loads=(50, 100, 150)) >= capacity.max_load(
        base, loads=(50, 100, 150)
    )
    slow = StepTime(1.0, 0.0, 0.0)  # a second per step: nothing meets the SLO
    assert capacity.max_load(slow, loads=(50,)) == 0.0


def test_capacity_is_a_spread_over_seeds():
    base = capacity.measured_step_time()
    spread = capacity.capacity_spread(base, seeds=(0, 1, 2), loads=(50, 100, 150))
    assert spread["low"] <= spread["median"] <= spread["high"]
    assert spread["seeds"] == 3
    answers = {capacity.max_load(base, (50, 100, 150), s) for s in (0, 1, 2)}
    assert spread["median"] in answers


def test_facts_name_the_spread(few_seeds):
    facts = capacity.facts()
    assert "median over 3 arrival seeds" in facts["max_load"]
    assert "(CPU)" in facts["device"]
    assert facts["ex1_a"].endswith("replicas")
    assert "KV memory" in facts["ex1_a"]
    assert capacity.sweep_table().count("\n") == len(capacity.LOADS) + 1


def test_run_box_prints_no_exercise_answer():
    from pathlib import Path

    main = Path(capacity.__file__).read_text().split('if __name__ == "__main__":')[1]
    assert "ex1" not in main and "ex2" not in main and "facts()" not in main


def test_curve_has_three_series_and_the_objective(few_seeds):
    fig = capacity.load_curve(2.0)
    (ax,) = fig.axes
    assert len(ax.lines) == 4
