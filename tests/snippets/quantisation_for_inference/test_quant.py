"""The page's arithmetic on the recorded errors (quant.py imports no torch)."""

from snippets.quantisation_for_inference import quant


def test_eight_bit_weights_nearly_double_the_batch_one_ceiling():
    ratio = quant.decode_ceiling(1, 2, 1) / quant.decode_ceiling(2, 2, 1)
    assert 1.9 < ratio < 2.0
    facts = quant.facts()
    assert "70 GB in int8" in facts["ex1_a"]
    assert facts["w_int8_agree"].endswith("%")


def test_the_error_table_has_a_row_per_rounding():
    rows = [line for line in quant.error_table().splitlines() if line.startswith("| ")]
    assert len(rows) == 2 + len(quant.errors())
