import pytest

from kernels.devices import H200
from snippets.request_latency import latency


def test_bounds_by_hand():
    # 8e9 params x 2 FLOPs x 1,000 tokens over the dense bf16 rate.
    assert latency.prefill_seconds(8e9, 1000, 1e15) == pytest.approx(0.016)
    # 16 GB of weights over 4.8 TB/s.
    assert latency.decode_step_seconds(8e9, 2, 4.8e12) == pytest.approx(16 / 4800)
    assert latency.end_to_end(0.5, 0.01, 1) == 0.5
    assert latency.end_to_end(0.5, 0.01, 101) == pytest.approx(1.5)


def test_worked_example_uses_the_device_figures():
    r = latency.worked()
    assert r["tpot"] == pytest.approx(16e9 / H200.hbm_bytes_per_s)
    assert latency.worked_text("tpot") == "3.3 ms"
    assert latency.worked_text("decode_share") == "98%"


def test_exercises():
    assert latency.exercise_text("ex1_a") == "10.33 s"  # 0.35 + 399 x 0.025
    assert "p50 40 ms" in latency.exercise_text("ex2_a")
    assert "p99 610 ms" in latency.exercise_text("ex2_a")
    assert "mean 97 ms" in latency.exercise_text("ex2_a")
    with pytest.raises(ValueError, match="which"):
        latency.exercise_text("nope")


def test_spread_reads_the_cpu_run():
    s = latency.ttft_spread(0)
    assert s["p50"] <= s["p99"] and s["count"] > 0
    assert latency.spread_text("p99").endswith("ms")


def test_timeline_draws_one_bar_per_decode_step():
    fig = latency.timeline(output_tokens=8)
    (ax,) = fig.axes
    assert len(ax.patches) == 2 + 7  # queue, prefill, seven decode steps
    assert {"TTFT", "TPOT", "prefill"} <= {t.get_text() for t in ax.texts}


def test_p99_of_a_hundred_is_the_second_slowest():
    from snippets.lib.serving.simulator import percentile
    from snippets.request_latency.latency import rank_text

    values = list(range(100))
    assert percentile(values, 99) == 98  # the second slowest of 0..99
    assert rank_text(99, 100) == "the 2nd slowest"
    assert rank_text(99, 99) == "the slowest"
    assert rank_text(99, 1000) == "the 11th slowest"
