"""The time floor model and the calculator function."""

import math

import pytest

from kernels.devices import H200
from snippets.napkin_math_and_the_roofline import floor as rl


def test_ridges_are_peak_over_bandwidth():
    assert rl.ridge("bf16") == pytest.approx(
        H200.bf16_dense_flop_per_s / H200.hbm_bytes_per_s
    )
    assert rl.ridge("fp8") == pytest.approx(2 * rl.ridge("bf16"))
    assert rl.ridge("fp32") < rl.ridge("bf16") < rl.ridge("fp8")


def test_sparsity_is_set_aside():
    assert rl.PEAKS["bf16"] == H200.bf16_sparse_flop_per_s / 2


def test_floor_is_the_larger_of_the_two_times():
    nbytes, flops = 8e8, 1.3e8
    assert rl.time_floor_s(flops, nbytes) == nbytes / H200.hbm_bytes_per_s
    assert rl.bound(flops, nbytes) == "memory-bound"
    flops = 1e12
    assert rl.time_floor_s(flops, nbytes) == flops / rl.PEAKS["bf16"]
    assert rl.bound(flops, nbytes) == "compute-bound"
    # exactly at the ridge both floors agree; the tie reads memory-bound
    at_ridge = rl.ridge("bf16") * nbytes
    assert math.isclose(at_ridge / rl.PEAKS["bf16"], nbytes / H200.hbm_bytes_per_s)


def test_calculator_text_and_errors():
    text = rl.time_floor(1e9, 6e6)
    assert text.startswith(rl.fmt_time(6e6 / H200.hbm_bytes_per_s))
    assert "memory-bound" in text and "bf16 ridge" in text
    assert "fp32 ridge" in rl.time_floor(1e9, 6e6, "fp32")
    assert "no bytes" in rl.time_floor(1e9, 0)
    for args, name in (
        ((-1.0, 1.0), "flops"),
        ((1.0, float("nan")), "bytes_moved"),
        ((0.0, 0.0), "flops"),
        ((1.0, 1.0, "fp64"), "dtype"),
    ):
        with pytest.raises(ValueError, match=name):
            rl.time_floor(*args)


def test_formatting():
    assert rl.fmt_time(1.678e-4) == "168 µs"
    assert rl.fmt_time(1.11e-3) == "1.11 ms"
    assert rl.fmt_time(3.5e-8) == "35 ns"
    assert rl.fmt_num(0) == "0" and rl.fmt_num(2730.7) == "2,731"
    assert rl.fmt_num(134_217_728) == "1.34×10⁸"
    assert rl.fmt_num(1.1e12) == "1.1×10¹²"
    assert rl.fmt_bytes(805306368) == "805 MB"
