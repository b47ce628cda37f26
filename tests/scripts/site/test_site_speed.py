"""scripts/site/site_speed.py: the committed speed runs as one table, newest
first, with each figure's share of its budget and its ratio to the
calibration; a hostile file is refused by name or shown inert."""

from __future__ import annotations

import copy
import json

import pytest

from evidence import ResultFileError
from scripts.site import site_speed

RUN = {
    "schema_version": 1,
    "run_status": "complete",
    "evidence": "measured, CPU: a test's stand-in",
    "identity": {
        "commit": "abc1234",
        "started_utc": "2026-12-03T10:00:00Z",
        "finished_utc": "2026-12-03T10:05:00Z",
        "runner_sources": {"scripts/bench/site.py": "0" * 64},
    },
    "software": {"python": "3.11.7"},
    "machine": {
        "kind": "cpu",
        "name": "Test CPU",
        "logical_cpus": 2,
        "memory_bytes": 1,
        "load_before": [0.5, 0.4, 0.3],
        "load_after": [0.6, 0.4, 0.3],
    },  # fmt: skip
    "calibration": {"task": "t", "widths": {"one": [0.2, 0.3, 0.4], "all": [0.5]}},
    "measurements": [
        {
            "name": "cold_build",
            "budget_s": 15,
            "clock": "wall",
            "width": "all",
            "status": "measured",
            "seconds": 12.0,
            "wall_s": 12.0,
            "cpu_s": 20.0,
            "calibration_s": 0.5,
            "load": [0.5, 0.4, 0.3],
        },  # fmt: skip
        {
            "name": "first_calculator_run",
            "budget_s": 4,
            "clock": "wall",
            "width": "all",
            "status": "skipped",
            "reason": "no Chromium",
        },  # fmt: skip
    ],
}


def write(folder, name, data):
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(json.dumps(data))


def test_the_table_has_a_row_per_budget_and_a_column_pair_per_run(tmp_path):
    loaded = copy.deepcopy(RUN)
    loaded["identity"]["started_utc"] = "2026-12-03T11:00:00Z"
    loaded["machine"]["load_before"] = [0.2, 3.0, 2.0]  # a minute old
    loaded["measurements"][0].update(
        seconds=24.0, calibration_s=1.0, load=[4.0, 3.0, 2.0]
    )
    write(tmp_path, "a.json", RUN)
    write(tmp_path, "b.json", loaded)
    lines = site_speed.speed_table(tmp_path).splitlines()
    assert "2026-12-03, load 4.0" in lines[0].split("|")[4]  # newest first
    assert lines[2].split("|")[1:-1] == [
        " cold build ", " 15 s ", " wall, all ", " 24.00 s (160%) ", " 24.0× ",
        " 12.00 s (80%) ", " 24.0× ",
    ]  # fmt: skip
    assert "skipped" in lines[3]


def test_the_sentence_above_reads_the_newest_machine(tmp_path):
    write(tmp_path, "a.json", RUN)
    assert site_speed.facts(tmp_path) == {
        "machine": "Test CPU", "cores": "2", "calibration_s": "0.30 s",
    }  # fmt: skip


def test_no_run_says_so(tmp_path):
    assert "No run" in site_speed.speed_table(tmp_path)


def test_a_hostile_machine_name_is_shown_inert(tmp_path):
    hostile = copy.deepcopy(RUN)
    hostile["machine"]["name"] = "<img src=x onerror=alert(1)>"
    write(tmp_path, "a.json", hostile)
    shown = site_speed.facts(tmp_path)["machine"]
    assert "<" not in shown and "onerror" in shown


@pytest.mark.parametrize(
    "field, value",
    [("budget_s", 0), ("name", "cold build"), ("status", "great")],
)
def test_a_malformed_file_fails_naming_the_field(tmp_path, field, value):
    bad = copy.deepcopy(RUN)
    bad["measurements"][0][field] = value
    write(tmp_path, "a.json", bad)
    with pytest.raises(
        ResultFileError, match=rf"a\.json: field 'measurements\[0\]\.{field}'"
    ):
        site_speed.speed_table(tmp_path)


def test_the_committed_runs_render():
    assert site_speed.speed_table().startswith(("| budget", "No run"))
