"""The committed serving run: the simulator, fitted without a load, predicts
it within the stated tolerance at loads where a queue forms, a step time 1.5x
too slow fails there, and the pages' tables come from the file."""

import copy

import pytest

from snippets.lib.serving import measured


@pytest.fixture(scope="module")
def result():
    found = measured.newest()
    assert found is not None, "no complete results/serving/*-cpu-quick-*.json"
    return found


def test_the_judged_loads_queue_and_are_not_saturated(result):
    judged = measured.judged_loads(result)
    assert len(judged) >= 3, "too few loads at 50-80% of capacity"
    for load in judged:
        s = load["summary"]
        assert not s["saturated"]
        assert s["ttft_p95_s"] > 1.5 * s["ttft_p50_s"] or s["queue_peak"] > 0


def test_the_held_out_simulator_agrees_and_the_wrong_model_fails(result):
    assert measured.verdict(result) == []
    wrong = measured.verdict(result, 1.5)
    failed_loads = {load for load, *_ in wrong}
    assert failed_loads == set(measured.claimed(result)), wrong


def test_each_prediction_is_fitted_without_its_own_load(result):
    """Known-bad variant: a run whose judged load's steps were doubled must
    change that load's prediction not at all (it is held out) ..."""
    load = measured.judged_loads(result)[0]
    before = measured.held_out_fit(result, load)
    doctored = copy.deepcopy(result)
    twin = measured.judged_loads(doctored)[0]
    twin["steps"]["seconds"] = [2 * x for x in twin["steps"]["seconds"]]
    assert measured.held_out_fit(doctored, twin) == before
    # ... while the other loads' fits move.
    other = measured.judged_loads(doctored)[1]
    assert measured.held_out_fit(doctored, other) != measured.held_out_fit(
        result, measured.judged_loads(result)[1]
    )


def test_agrees_uses_the_larger_of_the_two_tolerances():
    tol = measured.TOLERANCE["ttft_p50_s"]
    assert measured.agrees(0.01, 0.01 * (1 + tol) - 1e-9)
    assert not measured.agrees(0.01, 0.01 * (1 + tol) + 1e-6)
    floor = measured.FLOOR_S
    assert measured.agrees(1e-6, 1e-6 + floor * 0.99)
    assert not measured.agrees(1e-6, 1e-6 + floor * 1.01)


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
    assert replay.count("\n| ") == 1 + 3 * len(measured.judged_loads(result))
    facts = measured.facts()
    assert facts["requests"] == str(result["settings"]["requests_per_load"])
    assert facts["fitted_failures"] == "0"
    for which in ("chunked_prefill", "prefix_caching", "watermark", "speculative"):
        assert measured.mechanism_table(which).count("\n| ") == 3
    fig = measured.load_curve()
    left, right = fig.axes
    assert len(left.lines[0].get_xdata()) == len(result["loads"])


def test_on_a_rerun_the_p50s_hold_and_the_wrong_model_still_fails():
    """A second run of the same code: its p95 may leave the band (the page
    says so), the p50s and TPOT must not, and x1.5 must fail at every load."""
    runs = measured.reruns()
    assert runs, "results/serving/reruns/ holds no complete run"
    for run in runs:
        assert not [f for f in measured.verdict(run) if f[1] != "ttft_p95_s"]
        wrong = {load for load, *_ in measured.verdict(run, 1.5)}
        assert wrong == set(measured.claimed(run))
