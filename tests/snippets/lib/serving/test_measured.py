"""The committed serving runs: every load summary is its request records
(ITL gaps included); the simulator, fitted without a load, predicts the
pooled runs within bands set by the noise floor, while a step time 1.5x too
slow and a model that prices prefill tokens at zero fail; the pages' tables
come from the files."""

import copy
import math

import pytest

from snippets.lib.serving import measured


@pytest.fixture(scope="module")
def result():
    found = measured.newest()
    assert found is not None, "no complete results/serving/*-cpu-quick-*.json"
    return found


def test_the_judged_loads_queue_and_are_not_saturated(result):
    judged = [
        load
        for load in measured.judged_loads(result)
        if measured.judged(load["fraction_of_capacity"], "ttft_p50_s")
    ]
    assert len(judged) >= 3, "too few loads at 50-80% of capacity"
    for load in judged:
        s = load["summary"]
        assert not s["saturated"]
        assert s["ttft_p95_s"] > 1.5 * s["ttft_p50_s"] or s["queue_peak"] > 0


def test_at_least_three_runs_of_the_same_code_are_pooled(result):
    pooled = measured.runs()
    assert len(pooled) >= 3 and pooled[0] is result
    sources = {str(r["identity"]["runner_sources"]) for r in pooled}
    assert len(sources) == 1


def test_the_fitted_model_agrees_and_the_wrong_models_fail():
    assert measured.verdict() == []
    # x1.5 fails every latency comparison (the premium is a ratio: a scale
    # that moves every step alike hardly moves it).
    wrong = {(f, k) for f, k, *_ in measured.verdict(1.5)}
    latencies = {
        (row["fraction"], k)
        for row in measured.replay()
        for k in measured.COMPARED
        if k != "prefill_premium" and measured.judged(row["fraction"], k)
    }
    assert latencies <= wrong
    # Prefill priced at zero, refitted: fails on the prefill premium.
    blind = measured.verdict(1.0, "prefill-blind")
    assert blind and all(k == "prefill_premium" for _, k, *_ in blind)


def test_the_scale_sweeps_passing_range_is_what_the_page_states():
    lo, hi = measured.PASSING_SCALES
    step = measured.SCALE_STEP
    assert measured.verdict(lo) == [] and measured.verdict(hi) == []
    assert measured.verdict(round(lo - step, 2)) != []
    assert measured.verdict(round(hi + step, 2)) != []


def test_the_bands_are_the_noise_floor_plus_the_margin():
    floors = measured.errors(1.0, "own-steps")
    for key in measured.COMPARED:
        band = measured.tolerance(key)
        assert band == pytest.approx(max(floors[key]) + measured.MARGIN)
        assert band < 1.0, f"{key}: a band of 100% could not fail"


def test_the_level_comes_from_the_judged_load_and_the_shape_does_not(result):
    """Known-bad variant: a judged load whose steps all ran twice as long.
    Its level doubles; the fit to the other loads does not move."""
    load = measured.judged_loads(result)[0]
    doctored = copy.deepcopy(load)
    doctored["steps"]["seconds"] = [2 * x for x in doctored["steps"]["seconds"]]
    twin = {**result, "loads": [doctored if x is load else x for x in result["loads"]]}

    def fit(n, p, d):
        return 1e-3 + 1e-4 * n + 1e-5 * (p + d)

    assert measured.level(doctored, fit) == pytest.approx(2 * measured.level(load, fit))
    before = measured.step_cost(result, load)(4, 10, 3)
    assert measured.step_cost(twin, doctored)(4, 10, 3) == pytest.approx(2 * before)


def test_a_model_the_check_does_not_know_is_named(result):
    load = result["loads"][0]
    with pytest.raises(ValueError, match="model must be"):
        measured.step_cost(result, load, "magic")


def test_agrees_uses_the_larger_of_band_and_floor():
    assert measured.agrees(0.01, 0.0119, 0.2, "ttft_p50_s")
    assert not measured.agrees(0.01, 0.0121, 0.2, "ttft_p50_s")
    floor = measured.FLOOR_S
    assert measured.agrees(1e-6, 1e-6 + floor * 0.99, 0.2, "ttft_p50_s")
    assert not measured.agrees(1e-6, 1e-6 + floor * 1.01, 0.2, "ttft_p50_s")
    assert not measured.agrees(1.0, 1.0 + floor, 0.0, "prefill_premium")


def nearest_rank(values, q):
    ordered = sorted(values)
    return ordered[math.ceil(q * len(ordered) / 100) - 1]


def test_every_load_summary_is_its_request_records():
    """ITL included: every gap of every request is stored, and the pooled
    ITL percentiles of the load table are recomputed from them."""
    slo = measured.newest()["settings"]["slo"]
    for run in measured.runs():
        for load in run["loads"]:
            reqs = measured.rows(load["requests"])
            s = load["summary"]
            gaps = [g for r in reqs for g in r["itl"]]
            assert len(gaps) == sum(r["output_tokens"] - 1 for r in reqs)
            series = {
                "ttft": [r["ttft"] for r in reqs],
                "tpot": [r["tpot"] for r in reqs if r["tpot"] is not None],
                "itl": gaps,
                "e2e": [r["finish_s"] - r["arrival_s"] for r in reqs],
            }
            for name, values in series.items():
                for q in (50, 95, 99):
                    assert s[f"{name}_p{q}_s"] == nearest_rank(values, q), name
            good = sum(
                r["ttft"] <= slo["ttft_s"]
                and (r["tpot"] is None or r["tpot"] <= slo["tpot_s"])
                for r in reqs
            )
            assert s["slo_attainment"] == good / len(reqs)


def test_attainment_is_shown_to_a_tenth_of_a_percent(result):
    table = measured.load_table()
    for load in result["loads"]:
        att = load["summary"]["slo_attainment"]
        assert f"({att:.1%}) |" in table
    assert f"{399 / 400:.1%}" != "100.0%"  # the review's 99.75% case


def test_linear_percentile_is_numpys_default():
    import numpy as np

    rng = np.random.default_rng(0)
    values = list(rng.exponential(size=101))
    for q in (1, 50, 95, 99, 100):
        assert measured.linear_percentile(values, q) == pytest.approx(
            np.percentile(values, q)
        )
    assert measured.linear_percentile([1.0, 2.0], 50) == 1.5  # not a rank


def test_the_result_labels_the_cpu_and_its_clock(result):
    assert result["device"]["kind"] == "cpu"
    assert measured.device_label(result).endswith("(CPU)")
    assert "CPU" in result["evidence"]
    assert result["settings"]["clock"].startswith("cpu time")


def test_newest_is_by_recorded_time_not_file_name(tmp_path, monkeypatch, result):
    import json

    from evidence import dumps

    small = {**result, "loads": result["loads"][:1]}
    old = copy.deepcopy(small)
    old["identity"]["started_utc"] = "2020-01-01T00:00:00+00:00"
    new = copy.deepcopy(small)
    new["identity"]["started_utc"] = "2030-01-01T00:00:00+00:00"
    new["settings"]["requests_per_load"] = 7
    (tmp_path / "zzz-cpu-quick-old.json").write_text(dumps(old))
    (tmp_path / "aaa-cpu-quick-new.json").write_text(dumps(new))
    partial = {**copy.deepcopy(new), "run_status": "partial"}
    partial["identity"]["started_utc"] = "2031-01-01T00:00:00+00:00"
    (tmp_path / "mmm-cpu-quick-partial.json").write_text(json.dumps(partial))
    monkeypatch.setattr(measured, "RESULTS", tmp_path)
    assert measured.newest()["settings"]["requests_per_load"] == 7


def test_a_malformed_result_fails_in_one_line(tmp_path, monkeypatch):
    from evidence import ResultFileError

    (tmp_path / "bad.json").write_text('{"schema_version": 1}')
    monkeypatch.setattr(measured, "RESULTS", tmp_path)
    with pytest.raises(ResultFileError, match="bad.json"):
        measured.newest()


def test_table_texts_and_plot(result):
    table = measured.load_table()
    assert table.count("\n| ") == len(result["loads"]) + 1
    assert "goodput" in table and "ITL p95" in table and "E2E p95" in table
    assert "per token fed" in measured.step_model_text()
    replay = measured.replay_table()
    judged = sum(
        measured.judged(row["fraction"], k)
        for row in measured.replay()
        for k in measured.COMPARED
    )
    assert replay.count("\n| ") == 1 + judged
    facts = measured.facts()
    assert facts["requests"] == str(result["settings"]["requests_per_load"])
    assert facts["fitted_failures"] == "0"
    assert facts["comparisons"] == str(judged)
    fig = measured.load_curve()
    left, right = fig.axes
    assert len(left.lines[0].get_xdata()) == len(result["loads"])


def test_the_stored_check_is_the_one_the_runs_give():
    """The build reads results/serving/check/replays.json instead of
    simulating; it must be what the committed runs give today."""
    import json

    stored = json.loads(measured.CHECK.read_text())
    pooled = measured.runs()
    fresh = {
        "runs": measured.run_ids(),
        "pooled_runs": len(pooled),
        "level_drift": measured.level_drift(pooled),
        "replays": [
            {"model": m, "scale": k, "rows": measured.replay(k, m, pooled)}
            for m, k in measured.STORED
        ],
    }
    assert stored == json.loads(json.dumps(fresh)), (
        "stale: run python -m scripts.serving.check"
    )


def test_a_stale_or_malformed_check_is_not_used(tmp_path, monkeypatch):
    import json

    stale = json.loads(measured.CHECK.read_text())
    stale["runs"] = ["another run"]
    stale["replays"][0]["rows"] = []
    path = tmp_path / "replays.json"
    path.write_text(json.dumps(stale))
    monkeypatch.setattr(measured, "CHECK", path)
    assert measured.stored(1.0, "fitted") is None  # computed, not read
    path.write_text('{"runs": 3}')
    with pytest.raises(ValueError, match="replays.json: not a serving check file"):
        measured.stored(1.0, "fitted")
