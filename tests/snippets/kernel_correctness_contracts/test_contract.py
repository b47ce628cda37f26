"""The contract's comparisons (snippets/kernel_correctness_contracts/contract.py),
and the rounding fact the exact tolerance rests on."""

import math

import pytest
import torch

from snippets.kernel_correctness_contracts.contract import (
    FRACTION_BITS,
    TOLERANCES,
    allowed_ulps,
    bits_changed,
    eps,
    names_argument,
    nan_mismatch,
    significand_bits,
    ulp_table,
    value_mismatch,
)


def t(*values, dtype=torch.float32):
    return torch.tensor(values, dtype=dtype)


def test_equal_values_and_signed_zeros_match():
    assert value_mismatch(t(1.0, 0.0, math.inf), t(1.0, -0.0, math.inf), 0) is None


def test_a_nan_where_a_number_belongs_is_a_wrong_value():
    message = value_mismatch(t(1.0, math.nan), t(1.0, 2.0), 0)
    assert message.startswith("1 of 2 elements") and "got nan" in message


def test_nan_in_the_reference_is_left_to_the_nan_check():
    assert value_mismatch(t(0.0), t(math.nan), 0) is None
    assert "1 of 1 NaN results lost" in nan_mismatch(t(0.0), t(math.nan))
    assert nan_mismatch(t(math.nan), t(math.nan)) is None


def test_infinity_must_match_exactly_even_with_a_tolerance():
    big = torch.finfo(torch.bfloat16).max
    assert value_mismatch(
        t(big, dtype=torch.bfloat16), t(math.inf, dtype=torch.bfloat16), 1
    )


def test_one_bfloat16_ulp_passes_only_where_allowed():
    ref = t(1.0, 3.0, dtype=torch.bfloat16)
    out = t(1.0078125, 3.0, dtype=torch.bfloat16)  # 1 + 2**-7: one ulp above 1
    assert value_mismatch(out, ref, ulps=1) is None
    assert "first at index (0,)" in value_mismatch(out, ref, ulps=0)
    assert allowed_ulps(torch.bfloat16, interpreter=True) == 1
    assert allowed_ulps(torch.bfloat16, interpreter=False) == 0


def test_bits_see_what_equality_does_not():
    assert bits_changed(t(0.0), t(-0.0)) == 1
    payload = torch.tensor([0x7FC00001], dtype=torch.int32).view(torch.float32)
    assert bits_changed(t(math.nan), payload) == 1
    assert bits_changed(t(math.nan), t(math.nan)) == 0


@pytest.mark.parametrize(
    "message, named",
    [
        ("residual has dtype torch.float64", True),
        ("x must be a torch.Tensor", True),
        ("'x' and 'residual' differ", True),
        ("unsupported dtype", False),
        ("Unsupported ptr type in x_ptr", False),
        ("expected 4x4", False),
    ],
)
def test_names_argument_wants_a_whole_word(message, named):
    assert names_argument(message) is named


def test_the_tolerance_table_lists_every_dtype():
    table = ulp_table()
    assert all(str(d).removeprefix("torch.") in table for d in TOLERANCES)


@pytest.mark.parametrize("name", list(FRACTION_BITS))
def test_format_definitions_agree_with_torch(name):
    # The page's numbers come from the format definitions (the build does not
    # import torch); torch's own description of each dtype must agree.
    dtype = getattr(torch, name)
    assert eps(dtype) == eps(name) == torch.finfo(dtype).eps
    assert significand_bits(dtype) == 1 - int(math.log2(torch.finfo(dtype).eps))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_rounding_a_float32_sum_equals_rounding_the_exact_sum(dtype):
    # The page's claim: float32 has at least 2p + 2 significand bits for
    # p = 11 (float16) and p = 8 (bfloat16), so rounding the sum to float32
    # first and then to `dtype` gives the bits of rounding the exact sum once.
    generator = torch.Generator().manual_seed(7)
    scale = torch.logspace(-6, 4, 200_000, dtype=torch.float32)
    a = (torch.randn(200_000, generator=generator) * scale).to(dtype)
    b = (-a.float() * (1 + torch.randn(200_000, generator=generator) * 1e-2)).to(dtype)
    b[::2] = (torch.randn(100_000, generator=generator) * scale[::2]).to(dtype)
    exact = a.double() + b.double()  # exact: both fit easily in float64
    once = exact.to(dtype)
    twice = (a.float() + b.float()).to(dtype)
    assert bits_changed(once, twice) == 0
