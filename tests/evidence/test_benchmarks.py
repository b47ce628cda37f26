"""Which benchmark result a page shows: loading, the newest, staleness."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evidence import ResultFileError, benchmarks
from evidence.benchmarks import load_result, load_results, newest, stale_changes

FIXTURES = Path(__file__).parents[1] / "scripts" / "site" / "fixtures" / "bench"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """Two GPU results and one CPU result for fixture_add, one GPU for mm,
    checked against a catalog that lists the fixture kernels."""
    for name in ("cpu_valid.json", "gpu_valid.json", "stale.json"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    monkeypatch.setattr(benchmarks, "known_kernels", fixture_kernels)
    return tmp_path


def fixture_kernels(root=None):
    return frozenset({"fixture_add", "fixture_mm"})


def test_results_load_oldest_first(folder):
    started = [r.started for r in load_results(folder)]
    assert started == sorted(started) and len(started) == 3


def test_newest_prefers_a_gpu_result(folder):
    results = load_results(folder)
    assert newest(results, "fixture_add").name == "stale.json"  # newest GPU
    assert newest(results, "fixture_mm").name == "gpu_valid.json"
    assert newest(results, "no_such_kernel") is None


def test_newest_filters_by_profile_and_device(folder):
    results = load_results(folder)
    assert newest(results, "fixture_add", on_gpu=False).name == "cpu_valid.json"
    assert newest(results, "fixture_add", profile="tiny").name == "cpu_valid.json"
    assert newest(results, "fixture_add", profile="compare") is None


def test_a_cpu_result_is_shown_only_while_no_gpu_result_exists(tmp_path, monkeypatch):
    monkeypatch.setattr(benchmarks, "known_kernels", fixture_kernels)
    shutil.copy(FIXTURES / "cpu_valid.json", tmp_path / "cpu_valid.json")
    assert newest(load_results(tmp_path), "fixture_add").name == "cpu_valid.json"


def test_stale_changes_name_the_changed_file(folder):
    root = folder / "root"
    (root / "kernels").mkdir(parents=True)
    (root / "kernels" / "fixture_add.py").write_bytes(b"# a different version\n")
    result = load_result(folder / "gpu_valid.json")
    changes = stale_changes(result, "fixture_add", root)
    assert [c["path"] for c in changes] == ["kernels/fixture_add.py"]
    assert changes[0]["was"] != changes[0]["now"]


def test_cross_field_rules_are_checked_on_load(folder):
    # Known-broken: a p20 above the median passes the schema but not the method.
    data = json.loads((folder / "gpu_valid.json").read_text())
    row = next(r for r in data["rows"] if r.get("timed"))
    row["p20_ms"] = row["median_ms"] * 2
    (folder / "gpu_valid.json").write_text(json.dumps(data))
    with pytest.raises(ResultFileError, match=r"p20_ms"):
        load_result(folder / "gpu_valid.json")
