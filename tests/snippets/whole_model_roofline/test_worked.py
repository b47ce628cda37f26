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
    assert worked.biggest_op_text("llama3-8b", "decode").startswith("gate and up")
    table = worked.layer_table("llama3-8b", "decode")
    assert table.count("memory") == 5
    assert worked.duration_text(2e-3) == "2 ms"
