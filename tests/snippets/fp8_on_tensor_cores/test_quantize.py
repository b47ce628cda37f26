"""The per-row quantise kernel matches its torch reference bit for bit."""

import pytest
import torch

from snippets.fp8_on_tensor_cores import quantize as q


def test_kernel_matches_reference_on_an_awkward_shape():
    result = q.demo(rows=5, k=37)
    assert result["bits_equal"] and result["scales_equal"]
    assert all(v == 448.0 for v in result["row_max"])  # each row's max maps to the top


def test_dequantised_error_is_within_half_a_step():
    # the top binade of e4m3 is [256, 448] with steps of 32
    assert q.demo()["worst_relative"] <= 16 / 448


def test_an_all_zero_row_gets_a_tiny_scale_not_a_nan():
    x = torch.zeros(2, 8)
    values, scale = q.quantise_rows(x)
    assert torch.all(values.float() == 0) and torch.all(scale > 0)


def test_the_launcher_rejects_what_the_kernel_cannot_index():
    with pytest.raises(ValueError, match="contiguous 2-D float32"):
        q.quantise_rows(torch.zeros(4, 4).t())
