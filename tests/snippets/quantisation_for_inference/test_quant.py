import torch

from snippets.quantisation_for_inference import quant


def test_round_trips_are_close_and_keep_the_shape():
    w = torch.linspace(-1, 1, 64, dtype=torch.float64).view(4, 16)
    for round_trip in quant.FORMATS.values():
        back = round_trip(w)
        assert back.shape == w.shape
        assert (back - w).abs().max() < 0.05
    assert (quant.int8_round_trip(w) - w).abs().max() <= 1 / 127 / 2 + 1e-12


def test_int8_keeps_the_next_token_and_a_coarse_rounding_does_not(monkeypatch):
    assert quant.error("weights", "int8")["top1_agreement"] > 0.97
    assert quant.error("kv", "int8")["top1_agreement"] > 0.97

    def three_bits(w):  # known-bad: 7 levels per row
        scale = w.abs().amax(-1, keepdim=True).clamp_min(1e-12) / 3
        return (w / scale).round().clamp(-3, 3) * scale

    monkeypatch.setitem(quant.FORMATS, "int3", three_bits)
    assert quant.error("weights", "int3")["top1_agreement"] < 0.9


def test_eight_bit_weights_nearly_double_the_batch_one_ceiling():
    ratio = quant.decode_ceiling(1, 2, 1) / quant.decode_ceiling(2, 2, 1)
    assert 1.9 < ratio < 2.0
    facts = quant.facts()
    assert "70 GB in int8" in facts["ex1_a"]
