from snippets.transpose_and_coalescing import compiled


def test_every_claimed_opcode_is_in_its_build():
    text = compiled.compiled_text()
    claimed = compiled.claimed_opcodes()
    assert {"LDG.E.128", "STG.E.128", "STS", "LDS"} <= set(claimed["tiled-fp32"])
    assert "STG.E" in claimed["naive-fp32"]
    for name, ops in claimed.items():
        entry = compiled.find_build(compiled.OP, name)
        for op in ops:
            assert entry["sass_opcodes"][op] > 0
            assert f"`{op}`" in text


def test_no_padding_and_xor_addresses():
    entry = compiled.find_build(compiled.OP, "tiled-fp32")
    assert entry["shared_bytes"] == compiled.tile_bytes(entry)
    assert entry["ptx_opcodes"]["xor.b32"] > 0
    assert "no padding" in compiled.compiled_text()


def test_ldsm_text_matches_the_artifact():
    data = compiled.load(compiled.OP)
    uses = any(compiled.opcodes(b, "LDSM") for b in data["builds"])
    assert ("No build" in compiled.ldsm_text()) == (not uses)


def test_missing_builds():
    assert "Not compiled" in compiled.compiled_text("nope")


def test_ldsm_branch_names_the_transposing_form(tmp_path):
    import json

    from evidence.artifacts import artifact_path

    data = json.loads(artifact_path("transpose").read_text(encoding="utf-8"))
    entry = {**data["builds"][0], "build": "tiled-bf16"}
    entry["sass_opcodes"] = {"LDSM.16.MT88.4": 4}
    path = tmp_path / "transpose.sm_90a.json"
    path.write_text(json.dumps({**data, "builds": [entry]}))
    text = compiled.ldsm_text(path)
    assert "`tiled-bf16`: `LDSM.16.MT88.4` × 4" in text and ".trans" in text
    assert "Not compiled" in compiled.ldsm_text(tmp_path / "none")


def test_grouped_text_reads_version_3_against_version_2(monkeypatch):
    text = compiled.grouped_text()
    assert "64 × 128 tile in 16,384 bytes" in text and "2 times" in text
    assert "keeps every global access sixteen bytes wide" in text
    assert "(0 bytes spilled)" in text
    # Known-bad: the same build with one 4-byte store says so.
    real = compiled.find_build

    def narrow(op, name):
        entry = dict(real(op, name))
        entry["sass_opcodes"] = {**entry["sass_opcodes"], "STG.E": 1}
        return entry

    monkeypatch.setattr(compiled, "find_build", narrow)
    assert "does not keep" in compiled.grouped_text()
