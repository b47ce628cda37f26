from snippets.capacity_planning import capacity
from snippets.lib.serving.simulator import StepTime


def test_faster_kernels_leave_the_fixed_part():
    t = capacity.faster_kernels(StepTime(1.0, 2.0, 4.0), 2.0)
    assert t == StepTime(1.0, 1.0, 2.0)


def test_faster_kernels_never_lower_the_supported_load():
    base = capacity.measured_step_time()
    assert capacity.max_load(capacity.faster_kernels(base, 2.0)) >= capacity.max_load(
        base
    )
    slow = StepTime(1.0, 0.0, 0.0)  # a second per step: nothing meets the SLO
    assert capacity.max_load(slow, loads=(50,)) == 0.0


def test_texts():
    assert capacity.text("max_load").endswith("requests/s")
    assert "(CPU)" in capacity.text("device")
    assert capacity.exercise_text("ex1_a").endswith("replicas")
    assert capacity.sweep_table().count("\n") == len(capacity.LOADS) + 1


def test_curve_has_two_series_and_the_objective():
    fig = capacity.load_curve(2.0)
    (ax,) = fig.axes
    assert len(ax.lines) == 3
