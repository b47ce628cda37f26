import pytest

from snippets.kv_levers_gqa_mla import levers


def test_bytes_per_token_by_design():
    # 32 layers x 2 x 8 heads x 128 x 2 bytes = 128 KiB, the batching example.
    assert levers.kv_bytes_per_token("GQA-8") == 128 * 2**10
    assert levers.kv_bytes_per_token("MHA") == 4 * levers.kv_bytes_per_token("GQA-8")
    assert levers.kv_bytes_per_token("MQA") == levers.kv_bytes_per_token("MHA") // 32
    assert levers.kv_values_per_token("MLA") == 512 + 64
    with pytest.raises(ValueError, match="design"):
        levers.kv_values_per_token("MoE")


def test_facts():
    assert levers.facts()["ex1_a"].startswith("320 KiB")
    assert "| 8,192 |" not in levers.table()
