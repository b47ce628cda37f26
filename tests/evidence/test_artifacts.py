"""The one artifact reader: load, builds, staleness, notes, families, HGMMA.

Moved here from the three lesson-side readers' tests when they became one
(their assertions kept): a missing file is a note, a malformed one names the
file and the field, a changed kernel source gives the staleness warning.
"""

import json

import pytest

from evidence import artifacts

MATMUL_FIXTURE = "tests/snippets/lib/fixtures/matmul.sm_90a.json"


def minimal_artifact(source: str = "kernels/k.py", sha: str = "0" * 64) -> dict:
    """A file the reader accepts (the committed scan artifact, its schema's
    every field) said to be compiled from another source."""
    data = json.loads(artifacts.artifact_path("scan").read_text(encoding="utf-8"))
    return {**data, "source": source, "source_sha256": sha}


def test_missing_file_is_none_and_a_note(tmp_path, monkeypatch):
    assert artifacts.load("residual_add_relu", tmp_path / "none.json") is None
    assert artifacts.load("x", tmp_path / "none.json") is None
    monkeypatch.setattr(artifacts, "ARTIFACTS", tmp_path)
    assert artifacts.staleness_note("x") == ""
    assert "Not compiled yet" in artifacts.missing_note("ghost")
    assert artifacts.build_names("ghost") == []
    assert artifacts.find_build("ghost", "b") is None


def test_malformed_files_name_the_file_and_the_field(tmp_path):
    path = tmp_path / "bad.sm_90a.json"
    path.write_text(json.dumps({"builds": [{"build": "b"}]}))
    with pytest.raises(artifacts.ArtifactError, match="required property") as error:
        artifacts.load("bad", path)
    assert str(path) in str(error.value)
    path.write_text(json.dumps({**minimal_artifact(), "builds": [{"build": "b"}]}))
    with pytest.raises(artifacts.ArtifactError, match=r"field 'builds\[0\]'"):
        artifacts.load("bad", path)
    no_builds = minimal_artifact()
    no_builds.pop("builds")
    path.write_text(json.dumps(no_builds))
    with pytest.raises(artifacts.ArtifactError, match="'builds' is a required"):
        artifacts.load("bad", path)
    path.write_text("{not json")
    with pytest.raises(artifacts.ArtifactError, match="not valid JSON"):
        artifacts.load("bad", path)


def test_staleness_compares_the_kernel_source(tmp_path):
    (tmp_path / "kernels").mkdir()
    source = tmp_path / "kernels" / "k.py"
    source.write_text("x = 1\n")
    path = tmp_path / "k.sm_90a.json"
    path.write_text(json.dumps(minimal_artifact()))
    assert "Stale" in artifacts.staleness_note("k", path, root=tmp_path)
    fresh = minimal_artifact(sha=artifacts.sha256_file(source))
    path.write_text(json.dumps(fresh))
    assert artifacts.staleness_note("k", path, root=tmp_path) == ""


def test_the_committed_artifact_of_scan_is_flagged_when_its_hash_is_old(
    tmp_path, monkeypatch
):
    good = json.loads(artifacts.artifact_path("scan").read_text())
    monkeypatch.setattr(artifacts, "ARTIFACTS", tmp_path)
    good["source_sha256"] = "0" * 64
    (tmp_path / "scan.sm_90a.json").write_text(json.dumps(good))
    assert "Stale artifact" in artifacts.staleness_note("scan")


def test_builds_by_name():
    entry = artifacts.find_build("transpose", "tiled-fp32")
    assert entry["build"] == "tiled-fp32"
    assert artifacts.find_build("transpose", "nope") is None
    with pytest.raises(KeyError, match="builds"):
        artifacts.build("softmax", "nope")
    assert artifacts.opcodes_text({}) == "none"
    assert artifacts.opcodes_text({"LDG.E.128": 8}) == "`LDG.E.128` × 8"


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


def test_stem_counts_sum_opcodes_by_stem():
    counts = artifacts.stem_counts(
        {"HGMMA.64x256x16.F32.BF16": 4, "HGMMA.64x128x16.F32.BF16": 2, "IADD3": 9},
        ("HGMMA", "LDG"),
    )
    assert counts == {"HGMMA": 6}


def test_hgmma_shape_parses_the_opcode():
    assert artifacts.hgmma_shape("HGMMA.64x256x16.F32.BF16") == (64, 256, 16)
    assert artifacts.hgmma_shape("HMMA.16816.F32.BF16") is None
