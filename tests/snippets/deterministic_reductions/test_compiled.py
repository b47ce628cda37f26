from pathlib import Path

from snippets.deterministic_reductions import compiled


def test_every_claimed_opcode_is_present_and_no_atomics():
    entry = compiled.build(compiled.OP, "fp32-aligned")
    facts = compiled.facts()
    page = (
        Path(__file__).parents[3]
        / "docs/kernels/memory-bound/deterministic-reductions.md"
    )
    text = " ".join(facts.values()) + page.read_text()  # FADD is typed there
    claimed = compiled.claimed_opcodes()
    assert {"SHFL.BFLY", "FADD", "STS", "LDS", "STG.E"} <= set(claimed)
    for op in claimed:
        assert entry["sass_opcodes"][op] > 0
        assert op in text
    assert compiled.opcodes(entry, *compiled.ATOMIC_PREFIXES) == {}
    assert facts["atomics"] == "none"  # the page: "Atomic instructions ...: none"
    # one float32 per warp crosses shared memory
    assert entry["shared_bytes"] == entry["num_warps"] * 4


def test_missing_build():
    assert compiled.claimed_opcodes("nope") == []
