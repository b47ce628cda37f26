"""The result writer (scripts/bench/writer.py): new names, validated writes."""

import copy
import json
from pathlib import Path

import pytest

from evidence import ResultFileError
from scripts.bench.writer import ResultWriter

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "site"
    / "fixtures"
    / "bench"
    / "gpu_valid.json"
)


def result(run: str, rows: int = 0) -> dict:
    data = json.loads(FIXTURE.read_text())
    data["identity"]["argv"] = [run]
    data["rows"] = data["rows"][:rows]
    return data


def test_writer_picks_a_new_name_when_the_stem_is_taken(tmp_path):
    first = ResultWriter(tmp_path, "same-stem")
    second = ResultWriter(tmp_path, "same-stem")
    path_a = first.write(result("a"))
    path_b = second.write(result("b"))
    assert path_a.name == "same-stem.json" and path_b.name == "same-stem-2.json"
    first.write(result("a", rows=1))  # rewrites only its own file
    assert json.loads(path_a.read_text())["identity"]["argv"] == ["a"]
    assert len(json.loads(path_a.read_text())["rows"]) == 1
    assert json.loads(path_b.read_text())["identity"]["argv"] == ["b"]
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.update(run_status="done"), r"field 'run_status'"),
        (lambda d: d["rows"][0].update(median_ms=-1.0), r"'rows\[0\]\.median_ms'"),
        (lambda d: d["rows"][0].update(kernel="other"), "'kernels' does not list"),
        (lambda d: d["rows"][2].pop("launches"), r"'rows\[2\]': 'launches'"),
    ],
    ids=["status", "negative-time", "kernel", "launches"],
)
def test_an_invalid_result_is_never_written(tmp_path, edit, message):
    data = result("x", rows=3)
    edit(data)
    with pytest.raises(ResultFileError, match=message):
        ResultWriter(tmp_path, "bad").write(data)
    assert not list(tmp_path.iterdir())


def test_a_later_invalid_write_keeps_the_last_good_file(tmp_path):
    writer = ResultWriter(tmp_path, "run")
    good = result("x", rows=1)
    path = writer.write(good)
    bad = copy.deepcopy(good)
    bad["schema_version"] = 1
    with pytest.raises(ResultFileError, match="schema_version"):
        writer.write(bad)
    assert json.loads(path.read_text()) == good
