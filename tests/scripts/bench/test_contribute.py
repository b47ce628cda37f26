"""Readers' results: a GPU file from outside goes through every check the
build applies before it is copied in, under a name of its own making."""

import json
import shutil
from pathlib import Path

import pytest

from scripts.bench import contribute as mod

FIXTURES = Path(__file__).parents[1] / "site" / "fixtures" / "bench"


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "fixture_add.py").write_text("# fixture kernel\n")
    (tmp_path / "kernels" / "fixture_mm.py").write_text("# fixture matmul\n")
    (tmp_path / "results" / "bench").mkdir(parents=True)
    shutil.copy(FIXTURES / "catalog" / "kernels.json", tmp_path / "results")
    return tmp_path


def incoming(tmp_path, name="gpu_valid.json", change=None):
    data = json.loads((FIXTURES / name).read_text())
    if change:
        change(data)
    path = tmp_path / "incoming.json"
    path.write_text(json.dumps(data))
    return path


def test_a_good_gpu_file_is_copied_under_its_identity(tree):
    results = tree / "results" / "bench"
    target = mod.contribute(incoming(tree), results, tree)
    assert target.parent == results
    assert target.name.endswith(".json") and "synthetic-gpu" in target.name
    assert target.read_bytes() == (tree / "incoming.json").read_bytes()
    assert [p.name for p in results.iterdir()] == [target.name]  # no temp left


def test_the_same_file_twice_is_refused(tree):
    results = tree / "results" / "bench"
    mod.contribute(incoming(tree), results, tree)
    with pytest.raises(mod.ResultFileError, match="already in"):
        mod.contribute(incoming(tree), results, tree)


@pytest.mark.parametrize(
    "name, change, message",
    [
        ("cpu_valid.json", None, "a CPU run"),
        ("gpu_valid.json", lambda d: d["rows"][0].update(median_ms=-1), "median_ms"),
        (
            "gpu_valid.json",
            lambda d: d["device"].update(name="../../etc/passwd"),
            None,
        ),
    ],
)
def test_hostile_files_are_refused_or_renamed_safely(tree, name, change, message):
    results = tree / "results" / "bench"
    path = incoming(tree, name, change)
    if message is None:
        target = mod.contribute(path, results, tree)
        assert target.parent == results and ".." not in target.name
        return
    with pytest.raises(mod.ResultFileError, match=message):
        mod.contribute(path, results, tree)
    assert list(results.iterdir()) == []


def test_the_command_says_one_line(tree, capsys, monkeypatch):
    monkeypatch.setattr(mod, "ROOT", tree)
    rc = mod.main([str(tree / "nope.json"), "--results", str(tree / "results/bench")])
    assert rc == mod.EXIT_REFUSED
    err = capsys.readouterr().err
    assert err.startswith("contribute: refused:") and err.count("\n") == 1


def test_the_cells_of_one_manifest_get_names_of_their_own():
    from scripts.bench.contribute import target_name

    data = {
        "identity": {
            "started_utc": "2026-12-01T10:00:00+00:00",
            "commit": "abcdef1234",
            "profile": "full",
        },
        "device": {"name": "NVIDIA H200"},
    }
    plain = target_name(data)
    data["identity"]["cell"] = {"plan_sha256": "0" * 64, "index": 3, "cells": 9}
    assert target_name(data) == plain.replace(".json", "-cell3.json")
