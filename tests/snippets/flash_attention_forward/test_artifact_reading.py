"""The attention artifact's matrix instructions, read by product."""

import json

from snippets.flash_attention_forward import artifact_reading
from snippets.lib.hopper_artifacts import artifact_path, build


def test_products_cover_one_key_step_per_loop_in_the_committed_builds():
    for name, want in (
        ("bf16-d128", {"scores S = Q K^T", "output O += P V"}),
        ("v2-bf16-d128", {"scores and the output"}),
    ):
        b = build("attention", name)
        found = artifact_reading.products(b)
        assert {p["product"] for p in found} == want
        for p in found:
            assert p["covers"], p
            assert p["rows"] == b["constexprs"]["BLOCK_M"]


def test_a_build_without_hgmma_or_with_odd_counts_says_so():
    b = build("attention", "bf16-d128")
    odd = dict(b, sass_opcodes={"HGMMA.64x64x16.F32.BF16": 6})
    assert artifact_reading.products(odd)[0]["covers"] is False
    assert artifact_reading.products(dict(b, sass_opcodes={})) == []


def test_facts_read_the_artifact_and_the_page_claims_hold():
    """The page says: the fold is one FFMA per exponential, version 2 sits
    at the register limit, nothing spills, and the causal build has the
    same matrix and exp2 instructions with fewer registers."""
    data = json.loads(artifact_path("attention").read_text())
    builds = {b["build"]: b for b in data["builds"]}
    v1, v2 = builds["bf16-d128"], builds["v2-bf16-d128"]
    causal = builds["v2-bf16-d128-causal"]
    facts = artifact_reading.facts()
    assert facts["v2.registers"] == str(v2["registers"])
    assert facts["v1.registers"] == str(v1["registers"])
    assert facts["causal.registers"] == str(causal["registers"])
    exps = artifact_reading.opcode_count(v2, "MUFU.EX2")
    assert facts["v2.MUFU.EX2"] == str(exps)
    assert artifact_reading.opcode_count(v2, "FFMA") >= exps
    assert v2["registers"] >= artifact_reading.MAX_REGISTERS_PER_THREAD
    assert v2["spill_store_bytes"] + v2["spill_load_bytes"] == 0
    assert artifact_reading.math_ops(v2) == artifact_reading.math_ops(causal)
    assert causal["registers"] <= v2["registers"]
    assert set(facts) >= {"v1.output.instr", "v1.scores.depth", "v2.both.tile"}
