import json

import pytest

from snippets.lib import kernel_artifact as artifact


def test_reads_builds_and_opcodes():
    entry = artifact.build("transpose", "tiled-fp32")
    assert artifact.opcodes(entry, "LDG", "STG") == {"LDG.E.128": 8, "STG.E.128": 8}
    assert artifact.build("transpose", "nope") is None
    assert artifact.opcodes_text({}) == "none"


def test_missing_and_malformed(tmp_path):
    assert artifact.load("residual_add_relu", tmp_path) is None
    assert "Not compiled" in artifact.builds_table("x", ("LDG",), tmp_path)
    assert artifact.staleness_note("x", tmp_path) == ""
    path = artifact.artifact_path("bad", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"builds": [{"build": "b"}]}))
    with pytest.raises(artifact.ArtifactError, match="lacks"):
        artifact.load("bad", tmp_path)


def test_staleness(tmp_path):
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "k.py").write_text("x = 1\n")
    path = artifact.artifact_path("k", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"source_sha256": "0" * 64, "builds": []}))
    assert "Stale" in artifact.staleness_note("k", tmp_path)


def test_table_lists_every_build():
    table = artifact.builds_table("residual_add_relu", ("LDG", "STG"))
    assert table.count("\n") == 1 + len(artifact.load("residual_add_relu")["builds"])
