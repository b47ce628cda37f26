import pytest

from snippets.lib.serving.simulator import (
    StepTime,
    fit_step_time,
    percentile,
    poisson_arrivals,
    request_metrics,
    simulate,
    summarize,
)


def test_percentile_is_nearest_rank():
    values = list(range(1, 101))
    assert percentile(values, 50) == 50 and percentile(values, 99) == 99
    assert percentile([3.0], 99) == 3.0
    assert percentile([5, 1, 4, 2, 3], 50) == 3
    with pytest.raises(ValueError, match="values"):
        percentile([], 50)
    with pytest.raises(ValueError, match="q"):
        percentile([1], 0)


def test_request_metrics():
    m = request_metrics(1.0, [1.5, 1.7, 2.1])
    assert m["ttft"] == pytest.approx(0.5)
    assert m["tpot"] == pytest.approx(0.3)
    assert m["itl"] == pytest.approx([0.2, 0.4])
    assert request_metrics(0.0, [1.0])["tpot"] is None


def test_fit_recovers_a_known_step_time_and_groups_change_nothing():
    truth = StepTime(0.002, 0.0005, 0.00001)
    steps = [
        {"seqs": s, "prefill_tokens": p, "decode_tokens": s, "seconds": truth(s, p + s)}
        for s in range(1, 9)
        for p in (0, 10, 40)
    ]
    fit = fit_step_time(steps)
    assert fit.fixed == pytest.approx(truth.fixed)
    assert fit.per_seq == pytest.approx(truth.per_seq)
    assert fit.per_token == pytest.approx(truth.per_token)
    doubled = [{**s, "count": 2} for s in steps]
    assert fit_step_time(doubled).fixed == pytest.approx(truth.fixed)
    with pytest.raises(ValueError, match="vary"):
        fit_step_time(
            [{"seqs": 1, "prefill_tokens": 0, "decode_tokens": 1, "seconds": 1.0}]
        )


def test_one_request_alone_takes_its_steps():
    step = StepTime(0.01, 0.0, 0.0)
    out = simulate(
        [{"arrival": 1.0, "prompt_tokens": 5, "output_tokens": 4}],
        step,
        max_batch=4,
        block_size=4,
        num_blocks=8,
    )
    assert out[0]["ttft"] == pytest.approx(0.01)
    assert out[0]["tpot"] == pytest.approx(0.01)


def test_more_load_means_more_waiting():
    step = StepTime(0.004, 0.001, 0.0001)

    def p50_ttft(rate):
        reqs = [
            {"arrival": t, "prompt_tokens": 20, "output_tokens": 16}
            for t in poisson_arrivals(rate, 80, seed=3)
        ]
        out = simulate(reqs, step, max_batch=8, block_size=16, num_blocks=64)
        return summarize(out, 1.0)["ttft_p50_s"]

    assert p50_ttft(5.0) < p50_ttft(200.0)


def test_poisson_arrivals_have_the_right_mean_gap():
    times = poisson_arrivals(10.0, 2000, seed=0)
    assert times == sorted(times)
    assert times[-1] / 2000 == pytest.approx(0.1, rel=0.1)
    with pytest.raises(ValueError, match="rate"):
        poisson_arrivals(0.0, 3, seed=0)
