"""The committed serving run: the simulator replays it within the stated
tolerance, and the page's table and plot come from it."""

import pytest

from snippets.lib.serving import measured


@pytest.fixture(scope="module")
def result():
    found = measured.newest()
    assert found is not None, "no results/serving/*-cpu-quick-*.json committed"
    return found


def test_simulator_and_engine_agree_on_the_cpu(result):
    covered = measured.claimed(result)
    assert len(covered) >= 2, "the run has too few loads below saturation"
    for row in measured.replay(result):
        if row["offered_rps"] not in covered:
            continue  # near saturation: shown on the page, not claimed
        m, s = row["measured"], row["simulated"]
        for key in ("ttft_p50_s", "tpot_p50_s"):
            assert measured.agrees(m[key], s[key]), (row["offered_rps"], key, m, s)


def test_agrees_uses_the_larger_of_the_two_tolerances():
    assert measured.agrees(0.1, 0.124) and not measured.agrees(0.1, 0.126)
    assert measured.agrees(0.001, 0.0019) and not measured.agrees(0.001, 0.0021)


def test_the_result_labels_the_cpu(result):
    assert result["device"]["kind"] == "cpu"
    assert measured.device_label(result).endswith("(CPU)")
    assert "CPU" in result["evidence"]


def test_table_texts_and_plot(result):
    table = measured.load_table()
    assert table.count("\n| ") == len(result["loads"]) + 1
    assert "(CPU), measured" in table
    assert "per token fed" in measured.step_model_text()
    assert measured.replay_table().count("ms |") >= len(result["loads"])
    assert measured.run_facts("requests") == str(
        result["settings"]["requests_per_load"]
    )
    fig = measured.load_curve()
    left, right = fig.axes
    assert len(left.lines) == len(right.lines) == 2
    assert len(left.lines[0].get_xdata()) == len(result["loads"])
