"""The tiled model equals plain attention; without the rescale it does not."""

import math

import pytest

from snippets.flash_attention_forward import tiled_model


@pytest.mark.parametrize("S", [1, 5, 11])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_tiled_matches_naive(S, causal):
    q, k, v = tiled_model.random_qkv(S, 3, seed=S)
    q = [[x * 4 for x in row] for row in q]  # large scores: the max moves
    got = tiled_model.attention_tiled(q, k, v, causal, block_m=4, block_n=2)
    want = tiled_model.attention_naive(q, k, v, causal)
    for row_got, row_want in zip(got, want, strict=True):
        assert row_got == pytest.approx(row_want, rel=1e-12, abs=1e-12)


def test_without_rescale_is_wrong():
    q, k, v = tiled_model.random_qkv(11, 3, seed=1)
    q = [[x * 4 for x in row] for row in q]
    broken = tiled_model.attention_tiled(q, k, v, rescale=False)
    want = tiled_model.attention_naive(q, k, v)
    worst = max(
        abs(a - b)
        for r, w in zip(broken, want, strict=True)
        for a, b in zip(r, w, strict=True)
    )
    assert worst > 1e-3


def test_folded_scale_is_exp_in_base_two():
    x, D = 3.7, 16
    assert 2 ** (x * tiled_model.LOG2_E / math.sqrt(D)) == pytest.approx(
        math.exp(x / math.sqrt(D)), rel=1e-15
    )
    assert tiled_model.largest_difference() < 1e-12
    assert tiled_model.facts()["scale"] == "log2(e) / sqrt(D) = 1.442695 / sqrt(D)"
