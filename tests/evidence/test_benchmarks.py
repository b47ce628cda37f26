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


def _cell_result(index: int, cells: int, copy_rate: float, plan: str = "a" * 64):
    from evidence.benchmarks import Result

    data = {
        "run_status": "complete",
        "identity": {
            "commit": "c0ffee",
            "started_utc": f"2026-12-01T10:00:0{index}+00:00",
            "finished_utc": f"2026-12-01T10:01:0{index}+00:00",
            "profile": "full",
            "device_kind": "cuda",
            "cell": {"plan_sha256": plan, "index": index, "cells": cells},
        },
        "device": {"name": "NVIDIA H200", "uuid": "GPU-1"},
        "kernels": {f"k{index}": {"sources": {}}},
        "ceilings": {"copy": {"best_bandwidth_bytes_per_s": copy_rate}},
        "rows": [{"kernel": f"k{index}"}],
        "shape_errors": [],
    }
    return Result(Path(f"cell{index}.json"), f"cell{index}.json", b"", str(index), data)


def test_merge_cells_joins_a_complete_manifest_and_leaves_an_incomplete_one():
    from evidence.benchmarks import merge_cells

    one, two = _cell_result(1, 2, 3e12), _cell_result(0, 2, 4e12)
    (joined,) = merge_cells([one, two])
    assert [r["kernel"] for r in joined.data["rows"]] == ["k0", "k1"]  # cell order
    assert set(joined.data["kernels"]) == {"k0", "k1"}
    assert joined.data["ceilings"]["copy"]["best_bandwidth_bytes_per_s"] == 4e12
    assert joined.data["identity"]["finished_utc"].endswith("01:01+00:00")
    assert "cell" not in joined.data["identity"]
    assert one.data["identity"]["cell"]["index"] == 1  # the files stay as read
    alone = [_cell_result(0, 3, 1e12), _cell_result(1, 3, 1e12)]
    assert merge_cells(alone) == alone  # a cell missing: not joined
    other = [_cell_result(0, 2, 1e12), _cell_result(1, 2, 1e12, plan="b" * 64)]
    assert merge_cells(other) == other  # two manifests never mix
