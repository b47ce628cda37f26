"""The whole-model lesson's worked answers, recomputed by hand."""

from kernels.devices import H200
from snippets.whole_model_roofline import worked
from snippets.whole_model_roofline.flops import training_flops_per_token


def test_attention_share_shrinks_with_width():
    assert worked.attention_share("llama3-70b") < worked.attention_share("llama3-8b")


def test_mfu_and_days_by_hand():
    cfg = worked.model("llama3-8b")
    flops = training_flops_per_token(cfg, 8192)
    expected = 6000 * flops / H200.bf16_dense_flop_per_s
    assert worked.mfu_value("llama3-8b") == expected
    assert 0 < worked.mfu_value("llama3-70b") < 1
    days = 15e12 * flops / (1024 * 0.4 * H200.bf16_dense_flop_per_s) / 86400
    assert worked.training_days("llama3-8b") == days


def test_decode_is_dominated_by_the_mlp():
    assert worked.fmt_biggest_op("llama3-8b", "decode").startswith("gate and up")
    table = worked.layer_table("llama3-8b", "decode")
    assert table.count("memory") == 5
    assert worked.fmt_duration(2e-3) == "2 ms"


def test_the_whole_step_adds_the_head_and_matches_the_inference_page():
    # 3.13 ms of layers + 0.22 ms of LM head = 3.35 ms, the inference
    # budgets page's single-sequence step (finding F5).
    from snippets.inference_budgets import worked as inference

    step = worked.model_step_seconds("llama3-8b")
    assert abs(step - inference.step_seconds("llama3-8b", 1)) / step < 0.01
    assert worked.facts()["decode.model_step"] == "3.35 ms"
    assert worked.facts()["decode.head"] == "219 µs"


def test_causal_prefill_attention_is_about_half():
    flops, share = worked.causal_prefill_attention("llama3-8b")
    full = next(o for o in worked.ops("llama3-8b", "prefill") if o.name == "attention")
    assert flops == full.flops * 2049 / 4096
    assert 0.03 < share < 0.04  # 3.6 % rather than 7 %


def test_the_identical_shares_are_the_coincidence_the_page_names():
    facts = worked.facts()
    assert facts["coincidence.prompt"] == f"{worked.WORKED['prompt']:,}"
    assert facts["coincidence.context"] == f"{worked.WORKED['context']:,}"
    decode = worked.layer_table("llama3-8b", "decode").splitlines()
    prefill = worked.layer_table("llama3-8b", "prefill").splitlines()
    shares = [[row.split("|")[-2] for row in t[2:]] for t in (decode, prefill)]
    assert shares[0] == shares[1]
