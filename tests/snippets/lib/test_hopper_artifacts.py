"""The generic artifact reader: families, tables, facts, errors."""

import json

import pytest

from snippets.lib import hopper_artifacts as artifacts


def test_family_counts_pick_the_first_matching_family():
    found = artifacts.family_counts(
        {
            "HGMMA.64x256x16.F32.BF16": 4,
            "LDGSTS.E.BYPASS.128": 36,
            "LDG.E.128": 2,
            "UTMALDG.2D": 6,
            "UTMASTG.2D": 2,
            "SYNCS.EXCH.64": 3,
            "IADD3": 9,
        }
    )
    assert found["warpgroup MMA"] == {"HGMMA.64x256x16.F32.BF16": 4}
    assert found["async copy to shared"] == {"LDGSTS.E.BYPASS.128": 36}
    assert found["global load"] == {"LDG.E.128": 2}
    assert found["bulk tensor copy (TMA)"] == {"UTMALDG.2D": 6, "UTMASTG.2D": 2}
    assert "IADD3" not in str(found)


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
        artifacts.build("softmax", "nope")
    window = artifacts.sass_window("matmul", "bf16-aligned", "HGMMA")
    assert window.startswith("```text") and "HGMMA" in window


def test_missing_stale_and_malformed(tmp_path, monkeypatch):
    assert artifacts.load("x", tmp_path / "none.json") is None
    monkeypatch.setattr(artifacts, "ARTIFACTS", tmp_path)
    assert "Not compiled yet" in artifacts.side_by_side("ghost", (), ())
    assert artifacts.fact("ghost", "b", "registers") == "(not compiled yet)"
    bad = tmp_path / "bad.sm_90a.json"
    bad.write_text(
        json.dumps(
            {
                "source": "kernels/scan.py",
                "source_sha256": "0",
                "triton_version": "x",
                "builds": [{"build": "b"}],
            }
        )
    )
    with pytest.raises(artifacts.ArtifactError, match="lacks 'num_warps'"):
        artifacts.load("bad")
    good = json.loads(
        (artifacts.ROOT / "results/artifacts/scan.sm_90a.json").read_text()
    )
    good["source_sha256"] = "0" * 64
    (tmp_path / "scan.sm_90a.json").write_text(json.dumps(good))
    assert "Stale artifact" in artifacts.staleness_note("scan")


def test_second_compiler_note(tmp_path, monkeypatch):
    note = artifacts.second_compiler_note("matmul")
    assert note.startswith("The benchmark machine runs Triton 3.6")
    monkeypatch.setattr(artifacts, "ARTIFACTS", tmp_path)
    assert artifacts.second_compiler_note("matmul") == (
        "No Triton 3.6 artifact of `matmul` is committed."
    )
