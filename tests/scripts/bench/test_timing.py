"""Tests for scripts/bench/timing.py on the CPU (host timers)."""

import time

import pytest

from scripts.bench import timing


def sleeper(seconds):
    return lambda: time.sleep(seconds)


def test_quantile_matches_linear_interpolation():
    samples = [5.0, 1.0, 3.0, 2.0, 4.0]
    assert timing.quantile(samples, 0.5) == 3.0
    assert timing.quantile(samples, 0.2) == pytest.approx(1.8)
    assert timing.quantile(samples, 0.8) == pytest.approx(4.2)
    assert timing.quantile([7.0], 0.2) == 7.0


@pytest.mark.parametrize("q", [-0.1, 1.5])
def test_quantile_rejects_q_outside_unit_interval(q):
    with pytest.raises(ValueError, match="q must lie"):
        timing.quantile([1.0], q)


def test_quantile_rejects_empty_samples():
    with pytest.raises(ValueError, match="empty"):
        timing.quantile([], 0.5)


def test_interleaved_keeps_every_sample_and_orders_rounds():
    calls = []
    providers = {
        "fast": lambda: calls.append("fast"),
        "slow": lambda: (calls.append("slow"), time.sleep(0.002)),
    }
    result = timing.time_interleaved(
        providers, device="cpu", rounds=3, repeats_per_round=4, warmup_ms=1.0
    )
    assert set(result) == {"fast", "slow"}
    for name, t in result.items():
        assert t.provider == name
        assert t.timer == timing.TIMER_HOST
        assert len(t.samples_ms) == 12
        assert t.rounds == 3 and t.repeats == 4
        assert t.p20_ms <= t.median_ms <= t.p80_ms
        assert t.warmup_ms >= 1.0 and t.warmup_calls >= 1
        assert t.first_call_ms >= 0
        assert t.flush_bytes == 0
    assert result["slow"].median_ms > result["fast"].median_ms
    assert result["slow"].median_ms >= 2.0
    # The order rotates, so no provider always runs first.
    assert [order[0] for order in result["fast"].round_order] == [
        "fast",
        "slow",
        "fast",
    ]
    # Timed calls come in blocks of `repeats` per provider after warm-up.
    timed = calls[-24:]
    assert timed[:4] == ["fast"] * 4 and timed[4:8] == ["slow"] * 4
    assert timed[8:12] == ["slow"] * 4


def test_first_call_is_timed_apart():
    state = {"first": True}

    def compiles_once():
        if state["first"]:
            state["first"] = False
            time.sleep(0.03)

    result = timing.time_interleaved(
        {"jit": compiles_once},
        device="cpu",
        rounds=3,
        repeats_per_round=2,
        warmup_ms=0.0,
    )
    t = result["jit"]
    assert t.first_call_ms >= 30.0
    assert max(t.samples_ms) < 30.0


def test_warmup_lasts_at_least_the_asked_time():
    t = timing.time_interleaved(
        {"noop": lambda: None},
        device="cpu",
        rounds=1,
        repeats_per_round=1,
        warmup_ms=20.0,
    )["noop"]
    assert t.warmup_ms >= 20.0
    assert t.warmup_calls > 1


def test_explicit_flush_on_cpu_is_recorded():
    t = timing.time_interleaved(
        {"noop": lambda: None},
        device="cpu",
        rounds=1,
        repeats_per_round=2,
        warmup_ms=0.0,
        flush_bytes=1 << 16,
    )["noop"]
    assert t.flush_bytes == 1 << 16


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"device": "tpu"}, "device must be"),
        ({"device": "cpu", "rounds": 0}, "rounds must be"),
        ({"device": "cpu", "repeats_per_round": 0}, "repeats_per_round"),
        ({"device": "cpu", "warmup_ms": -1.0}, "warmup_ms"),
        ({"device": "cpu", "flush_bytes": -1}, "flush_bytes"),
    ],
    ids=["device", "rounds", "repeats", "warmup", "flush"],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        timing.time_interleaved({"noop": lambda: None}, **kwargs)


def test_empty_and_uncallable_providers_are_rejected():
    with pytest.raises(ValueError, match="providers is empty"):
        timing.time_interleaved({}, device="cpu")
    with pytest.raises(TypeError, match="'x' is not callable"):
        timing.time_interleaved({"x": 3}, device="cpu")


def test_l2_size_needs_a_cuda_device():
    with pytest.raises(ValueError, match="needs a CUDA device"):
        timing.l2_cache_bytes("cpu")
    assert timing.default_flush_bytes("cpu") == 0


def test_time_first_call_returns_the_result_and_its_time():
    out, ms = timing.time_first_call(lambda: (time.sleep(0.01), 7)[1], "cpu")
    assert out == 7
    assert ms >= 10.0


def test_device_kernels_are_not_recorded_on_a_cpu():
    assert timing.device_kernels(lambda: None, "cpu") == []
