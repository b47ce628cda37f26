"""Attention FLOPs and bytes, against brute-force counts and by hand."""

import pytest

from kernels.devices import H200
from snippets.flash_attention_forward import cost


@pytest.mark.parametrize("S", [1, 5, 64])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_flops_count_two_multiply_adds_per_visible_score_and_column(S, causal):
    B, H, D = 2, 3, 4
    visible = sum(1 for i in range(S) for j in range(S) if not causal or j <= i)
    # Q K^T: D multiply-adds per score; P V: D multiply-adds per score.
    assert cost.attention_flops(B, H, S, D, causal) == B * H * visible * 2 * 2 * D


def test_bytes_and_intensity():
    assert cost.flash_bytes(1, 1, 10, 8, 2) == 4 * 10 * 8 * 2
    assert cost.materialized_bytes(1, 1, 10, 8, 2) == 4 * 80 * 2 + 4 * 100 * 2
    assert cost.intensity(1, 1, 4096, 128, 2, False) == 2048  # S / 2
    # Materialized intensity approaches D / 2 = 64 from below, never the ridge.
    assert cost.intensity(1, 1, 2**20, 128, 2, False, True) < 64 < cost.ridge_point()
    assert cost.ridge_point() == H200.bf16_dense_flop_per_s / H200.hbm_bytes_per_s
    assert cost.crossing_length() == 512  # 512 / 2 = 256 > 206 > 128
    assert cost.crossing_length(materialized=True) is None


def test_worked_numbers_and_table():
    assert cost.facts()["flash-bytes"] == "256 MiB"  # 4*4*16*4096*128*2
    assert cost.facts()["scores-bytes"] == "8.0 GiB"
    assert cost.facts()["flash-intensity"] == "2,048"
    assert cost.facts()["causal-share"] == f"{4097 / 8192:.4f}"
    assert cost.facts()["ridge"] == "206 FLOP/byte"
    table = cost.length_table()
    assert table.count("| compute |") == 6  # every listed S is past the crossing
    assert "| 4,096 | 2,048 | 62 | compute |" in table


def test_exercise_by_hand():
    answer = cost.exercise()
    assert answer["extra_bytes"] == 4 * 4 * 16 * 4096 * 4096 * 2
    flops = 4 * 4 * 16 * 4096 * 4096 * 128
    total = 4 * 4 * 16 * 4096 * 128 * 2 + answer["extra_bytes"]
    assert answer["intensity"] == pytest.approx(flops / total)
    facts = cost.facts()
    assert facts["exercise.extra-bytes"] == "8,589,934,592"
    assert facts["exercise.times"] == "32"
    assert answer["intensity"] < answer["ridge"]  # the page says "below"


def test_the_exponential_roof_is_about_half_the_matmul_time():
    # 4 * 16 * 4096^2 exponentials at 3.9e12/s against 0.55 TFLOP at 989.5 T.
    B, H, S = 4, 16, 4096
    assert cost.exponentials(B, H, S, False) == B * H * S * S
    assert cost.exponentials(B, H, S, True) == B * H * S * (S + 1) // 2
    exp = cost.exp_seconds(B, H, S, False)
    matmul = cost.attention_flops(B, H, S, 128, False) / H200.bf16_dense_flop_per_s
    assert 0.27e-3 < exp < 0.28e-3 and 0.45 < exp / matmul < 0.55
    facts = cost.facts()
    assert facts["exp-share"] == "50%" and facts["flops-per-exp"] == "512"
    # The S x S matrices alone, without Q, K, V and O (finding F22).
    assert facts["scores-time"] == f"{8 * 2**30 / 4.8e12 * 1e3:.2f} ms"
