from snippets.deterministic_reductions import compiled


def test_every_claimed_opcode_is_present_and_no_atomics():
    entry = compiled.build(compiled.OP, "fp32-aligned")
    text = compiled.compiled_text()
    claimed = compiled.claimed_opcodes()
    assert {"SHFL.BFLY", "FADD", "STS", "LDS", "STG.E"} <= set(claimed)
    for op in claimed:
        assert entry["sass_opcodes"][op] > 0
        assert op in text
    assert compiled.opcodes(entry, *compiled.ATOMIC_PREFIXES) == {}
    assert text.endswith("none.")
    # one float32 per warp crosses shared memory
    assert entry["shared_bytes"] == entry["num_warps"] * 4


def test_missing_build():
    assert "Not compiled" in compiled.compiled_text("nope")
    assert compiled.claimed_opcodes("nope") == []
