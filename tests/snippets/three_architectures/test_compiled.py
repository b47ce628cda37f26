"""snippets/three_architectures/compiled.py: the builds read from the
committed artifacts, one per target."""

import json

import pytest

from evidence import artifacts
from snippets.three_architectures import compiled as c


@pytest.mark.parametrize(
    "target, matrix, absent",
    [
        ("sm_90a", "HGMMA", ("UTCHMMA", "HMMA")),
        ("sm_100a", "UTCHMMA", ("HGMMA", "HMMA")),
        ("sm_120a", "HMMA", ("HGMMA", "UTCHMMA")),
    ],
)
def test_each_target_takes_its_own_matrix_instruction(target, matrix, absent):
    for kernel in c.BUILDS:
        entry = c.record(kernel, target)
        assert c.matrix_instruction(entry) == matrix
        assert not any(c.stems(entry).get(stem) for stem in absent)
        assert c.stems(entry)["UTMALDG"] > 0  # TMA on all three


def test_only_datacenter_blackwell_reads_tensor_memory():
    for kernel in c.BUILDS:
        reads = {t: c.stems(c.record(kernel, t)).get("LDTM", 0) for t in c.TARGETS}
        assert reads["sm_100a"] > 0 and reads["sm_90a"] == reads["sm_120a"] == 0


def test_every_shown_build_fits_its_target_and_the_check_can_fail():
    for kernel in c.BUILDS:
        for target in c.TARGETS:
            assert c.fits(c.record(kernel, target), target)
    hopper = c.record("matmul", "sm_90a")
    assert not c.fits(hopper, "sm_120a")  # Hopper's tiles on an RTX 50 card


def test_the_table_has_a_column_per_target_and_a_row_per_quantity():
    table = c.side_by_side("matmul").splitlines()
    assert table[0].count("sm_") == 3
    assert len(table) == 2 + len(c.rows("matmul"))
    assert "`v2-bf16-tma-persistent-sm120`" in table[2]


def test_a_missing_artifact_says_how_to_build_it(tmp_path, monkeypatch):
    monkeypatch.setattr(artifacts, "ARTIFACTS", tmp_path)
    with pytest.raises(FileNotFoundError, match="python -m scripts.artifacts matmul"):
        c.record("matmul", "sm_90a")


def test_a_build_without_registers_fails_naming_the_field(tmp_path, monkeypatch):
    source = artifacts.ARTIFACTS / "matmul.sm_90a.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    del data["builds"][0]["registers"]
    (tmp_path / source.name).write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(artifacts, "ARTIFACTS", tmp_path)
    with pytest.raises(artifacts.ArtifactError, match="registers"):
        c.record("matmul", "sm_90a")


def test_facts_are_strings():
    facts = c.facts()
    assert facts["all_fit"] == "every"
    assert all(isinstance(v, str) and v for v in facts.values())


def test_attention_on_sm_120a_spills_with_hopper_tiles_and_not_with_its_own():
    facts = c.facts()
    assert facts["sm120_attention_spills"] == "0"
    assert int(facts["sm120_hopper_tiles_spills"].replace(",", "")) > 0
    assert facts["sm120_attention_tile"] != facts["sm90_attention_tile"]
