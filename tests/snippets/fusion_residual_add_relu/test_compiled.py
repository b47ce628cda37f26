from snippets.fusion_residual_add_relu import compiled


def test_every_claimed_opcode_is_in_the_artifact():
    entry = compiled.build(compiled.OP, "bf16-aligned")
    claimed = compiled.claimed_opcodes()
    assert {"LDG.E.128", "STG.E.128", "FADD"} <= set(claimed)
    for op in claimed:
        assert entry["sass_opcodes"][op] > 0
        assert f"`{op}`" in " ".join(compiled.build_facts().values())


def test_the_stores_are_exactly_the_outputs():
    entry = compiled.build(compiled.OP, "bf16-aligned")
    per_thread = compiled.elements_per_thread(entry)
    stores = compiled.opcodes(entry, "STG")
    stored = sum(compiled.load_width_bytes(op) * n for op, n in stores.items())
    assert stored == per_thread * 2  # no intermediate leaves the registers
    assert entry["shared_bytes"] == 0


def test_widths():
    assert compiled.load_width_bytes("LDG.E.128") == 16
    assert compiled.load_width_bytes("LDG.E") == 4
    assert compiled.facts()["wide-bytes"] == "16 bytes"


def test_missing_build_claims_nothing():
    assert compiled.claimed_opcodes("no-such-build") == []


def test_the_divisibility_triton_specialises_on_is_16():
    # The sentence on the fusion page (finding F17) rests on this constant;
    # read it from the installed Triton so an upgrade that changes it fails.
    import inspect

    from triton.backends import compiler

    assert "% 16 == 0" in inspect.getsource(compiler)
    facts = compiled.facts()
    assert facts["divisibility"] == "16" and facts["bf16-per-wide"] == "8"
    assert facts["wide-bits"] == "128-bit"
