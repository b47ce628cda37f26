import math

import torch

from snippets.quantisation_for_inference import measure, quant


def test_round_trips_are_close_and_keep_the_shape():
    w = torch.linspace(-1, 1, 64, dtype=torch.float64).view(4, 16)
    for round_trip in measure.FORMATS.values():
        back = round_trip(w)
        assert back.shape == w.shape
        assert (back - w).abs().max() < 0.05
    assert (measure.int8_round_trip(w) - w).abs().max() <= 1 / 127 / 2 + 1e-12


def test_int8_keeps_the_next_token_and_a_coarse_rounding_does_not(monkeypatch):
    assert measure.error("weights", "int8")["top1_agreement"] > 0.97
    assert measure.error("kv", "int8")["top1_agreement"] > 0.97

    def three_bits(w):  # known-bad: 7 levels per row
        scale = w.abs().amax(-1, keepdim=True).clamp_min(1e-12) / 3
        return (w / scale).round().clamp(-3, 3) * scale

    monkeypatch.setitem(measure.FORMATS, "int3", three_bits)
    assert measure.error("weights", "int3")["top1_agreement"] < 0.9


def test_the_record_the_page_reads_is_what_the_model_measures_now():
    # The site never imports torch: it reads errors.json, which must match.
    recorded = quant.errors()
    fresh = {(row["variant"], row["format"]): row for row in measure.record()}
    assert recorded.keys() == fresh.keys()
    for key, row in fresh.items():  # the same up to float summation order
        for field, value in row.items():
            if isinstance(value, float):
                assert math.isclose(recorded[key][field], value, rel_tol=1e-9), field
            else:
                assert recorded[key][field] == value, field
