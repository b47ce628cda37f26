"""The launch model, the committed-run facts and the excerpts."""

import pytest

from snippets.timing_gpu_work import timing_facts as tf


def test_host_timer_without_sync_sees_only_launches():
    reads = tf.host_timer_reads(5.0, 50.0, 10)
    assert reads["no sync"] == 50.0
    assert reads["sync at end"] == 5.0 + 10 * 50.0  # first enqueue, then back to back
    # launch-bound: kernels wait for the host
    reads = tf.host_timer_reads(5.0, 2.0, 100)
    assert reads["sync at end"] == 100 * 5.0 + 2.0
    with pytest.raises(ValueError):
        tf.host_timer_reads(1.0, 1.0, 0)


def test_launch_share():
    assert tf.launch_share(2.0, 5.0) == pytest.approx(0.6)
    assert tf.launch_share(50.0, 5.0) == 0.0


def test_run_facts_come_from_the_newest_compare_file():
    data = tf.newest_compare()
    assert data["identity"]["profile"] == "compare"
    row = tf._row(data, "1024×1024", "compile")
    assert tf.facts()["run.first"] == tf.fmt_ms(row["first_call_ms"])
    assert tf.facts()["run.kind"] == "cpu"  # no GPU run is committed yet
    assert int(tf.facts()["run.samples"]) == row["rounds"] * row["repeats"]
    with pytest.raises(KeyError):
        tf._row(data, "1×1", "eager")


def test_excerpts_follow_the_timer_file():
    block = tf.function_excerpt("time_first_call")
    assert block.startswith('```python title="scripts/bench/timing.py (excerpt)"')
    assert "def time_first_call" in block and "perf_counter" in block
    loop = tf.lines_excerpt("if cuda:", "samples[name].extend")
    assert "begin.record()" in loop and "elapsed_time" in loop
    with pytest.raises(KeyError):
        tf.function_excerpt("no_such_function")


def test_exercise_numbers():
    assert tf.facts()["exercise.no_sync"] == "500 µs"
    assert tf.facts()["exercise.per_call"] == "5.02 µs"
    assert tf.facts()["exercise.share"] == "60%"
    assert "without a synchronize" in tf.fmt_async(5.0, 50.0, 10)


def test_the_flush_keeps_the_stream_busy_for_tens_of_microseconds():
    # 4 x 50 MiB read at 4.8 TB/s: about 44 us, far longer than a launch.
    assert tf.flush_seconds(50 * 2**20, 4.8e12, 4) == 4 * 50 * 2**20 / 4.8e12
    assert tf.facts()["flush.h200"] == "44 µs"
    assert tf.facts()["flush.multiple"] == "4×"
