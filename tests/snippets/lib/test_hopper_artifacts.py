"""The generic artifact reader: families, tables, facts, errors."""

import json

import pytest

from evidence import artifacts as evidence_artifacts
from snippets.lib import hopper_artifacts as artifacts


def test_tables_list_every_build_of_the_artifact():
    for op in ("matmul", "attention", "scan", "softmax"):
        table = artifacts.side_by_side(op, ("global load",), ("registers", "spills"))
        for name in artifacts.build_names(op):
            assert f"`{name}`" in table
    ptx = artifacts.ptx_side_by_side("matmul", ("bf16-aligned",), ("wgmma",))
    assert "wgmma.mma_async" in ptx


def test_facts_and_text():
    data = json.loads(artifacts.artifact_path("softmax").read_text())
    v2 = next(b for b in data["builds"] if b["build"] == "v2-bf16-4096")
    exps = sum(n for o, n in v2["sass_opcodes"].items() if o.startswith("MUFU.EX2"))
    assert artifacts.fact("softmax", "v2-bf16-4096", "MUFU.EX2") == str(exps)
    assert artifacts.fact("softmax", "v2-bf16-4096", "registers") == str(
        v2["registers"]
    )
    assert artifacts.compiled_for("softmax").startswith(
        f"Triton {data['triton_version']}"
    )
    with pytest.raises(KeyError, match="builds"):
        evidence_artifacts.build("softmax", "nope")
    window = artifacts.sass_window("matmul", "bf16-aligned", "HGMMA")
    assert window.startswith("```text") and "HGMMA" in window


def test_missing_artifact_gives_notes(tmp_path, monkeypatch):
    monkeypatch.setattr(evidence_artifacts, "ARTIFACTS", tmp_path)
    assert "Not compiled yet" in artifacts.side_by_side("ghost", (), ())
    assert artifacts.fact("ghost", "b", "registers") == "(not compiled yet)"


def test_second_compiler_note(tmp_path, monkeypatch):
    note = artifacts.second_compiler_note("matmul")
    assert note.startswith("The benchmark machine runs Triton 3.6")
    # Counted, not listed: the builds are listed once, on the Benchmarks page.
    builds = len(artifacts.load("matmul")["builds"])
    assert f"of these {builds} builds" in note and "`" not in note
    assert artifacts.second_compiler_note("residual_add_relu").endswith(
        "gives the same registers for every build"
    )
    monkeypatch.setattr(evidence_artifacts, "ARTIFACTS", tmp_path)
    assert artifacts.second_compiler_note("matmul") == (
        "No Triton 3.6 artifact of `matmul` is committed"
    )
