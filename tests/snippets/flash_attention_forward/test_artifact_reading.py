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
        assert "compiled once for the mask-free" in artifact_reading.products_text(name)


def test_a_build_without_hgmma_or_with_odd_counts_says_so():
    b = build("attention", "bf16-d128")
    odd = dict(b, sass_opcodes={"HGMMA.64x64x16.F32.BF16": 6})
    assert artifact_reading.products(odd)[0]["covers"] is False
    assert artifact_reading.products(dict(b, sass_opcodes={})) == []


def test_version_and_causal_texts_read_the_artifact():
    data = json.loads(artifact_path("attention").read_text())
    builds = {b["build"]: b for b in data["builds"]}
    v1, v2 = builds["bf16-d128"], builds["v2-bf16-d128"]
    text = artifact_reading.versions_text()
    assert (
        f"It holds {v2['registers']} registers per thread against {v1['registers']}"
        in text
    )
    exps = sum(n for o, n in v2["sass_opcodes"].items() if o.startswith("MUFU.EX2"))
    assert f"{exps} `MUFU.EX2`" in text
    causal = artifact_reading.causal_text()
    assert f"takes {builds['v2-bf16-d128-causal']['registers']} registers" in causal
    assert "Version 2's build is not in" in artifact_reading.versions_text(v2="nope")
