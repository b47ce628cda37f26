"""The memory-bound lessons' reading: opcodes by prefix, the builds table.
(Loading, staleness and the notes are tested in tests/evidence/test_artifacts.py.)"""

from evidence.artifacts import find_build, load, opcodes_text
from snippets.lib import kernel_artifact as artifact


def test_reads_builds_and_opcodes():
    entry = find_build("transpose", "tiled-fp32")
    assert artifact.opcodes(entry, "LDG", "STG") == {"LDG.E.128": 8, "STG.E.128": 8}
    assert find_build("transpose", "nope") is None
    assert opcodes_text({}) == "none"


def test_missing_artifact_gives_the_note(tmp_path):
    assert "Not compiled" in artifact.builds_table("x", ("LDG",), tmp_path / "x.json")


def test_table_lists_every_build():
    table = artifact.builds_table("residual_add_relu", ("LDG", "STG"))
    assert table.count("\n") == 1 + len(load("residual_add_relu")["builds"])
