from snippets.transpose_and_coalescing import compiled


def test_every_claimed_opcode_is_in_its_build():
    facts = compiled.facts()
    claimed = compiled.claimed_opcodes()
    assert {"LDG.E.128", "STG.E.128", "STS", "LDS"} <= set(claimed["tiled-fp32"])
    assert "STG.E" in claimed["naive-fp32"]
    named = " ".join(v for k, v in facts.items() if k.startswith(("naive.", "tiled.")))
    for name, ops in claimed.items():
        entry = compiled.find_build(compiled.OP, name)
        for op in ops:
            assert entry["sass_opcodes"][op] > 0
            assert f"`{op}`" in named


def test_no_padding_and_xor_addresses():
    """The page says: no padding, a swizzle (xor) instead."""
    entry = compiled.find_build(compiled.OP, "tiled-fp32")
    assert entry["shared_bytes"] == compiled.tile_bytes(entry)
    assert entry["ptx_opcodes"]["xor.b32"] > 0
    assert compiled.facts()["tiled.xor"] == str(entry["ptx_opcodes"]["xor.b32"])


def test_the_page_claims_ldsm_with_trans():
    """The page says some build uses LDSM in its transposing .MT form."""
    users = compiled.ldsm_users()
    assert users and any(".MT" in op for ops in users.values() for op in ops)
    assert compiled.facts()["ldsm.users"].startswith("`tiled-bf16`: `LDSM.")


def test_ldsm_users_reads_a_given_artifact(tmp_path):
    import json

    from evidence.artifacts import artifact_path

    data = json.loads(artifact_path("transpose").read_text(encoding="utf-8"))
    entry = {**data["builds"][0], "build": "tiled-bf16"}
    entry["sass_opcodes"] = {"LDSM.16.MT88.4": 4}
    path = tmp_path / "transpose.sm_90a.json"
    path.write_text(json.dumps({**data, "builds": [entry]}))
    assert compiled.ldsm_users(path) == {"tiled-bf16": {"LDSM.16.MT88.4": 4}}


def test_grouped_facts_read_version_3_against_version_2():
    facts = compiled.facts()
    assert facts["grouped.tile"] == "64 × 128"
    assert facts["grouped.shared-bytes"] == "16,384"
    assert facts["grouped.shared-ratio"] == "2" and facts["grouped.spilled"] == "0"
    grouped = compiled.find_build(compiled.OP, "grouped-bf16")
    assert compiled.global_width_is_16_bytes(grouped)  # the page says so
    # Known-bad: the same build with one 4-byte store is caught.
    narrow = dict(grouped, sass_opcodes={**grouped["sass_opcodes"], "STG.E": 1})
    assert not compiled.global_width_is_16_bytes(narrow)
