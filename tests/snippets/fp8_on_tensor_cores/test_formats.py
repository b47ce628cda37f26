"""The numpy FP8 model agrees with torch's float8 casts bit for bit, and the
page's tables say what the code computes."""

import numpy as np
import pytest
import torch

from kernels.devices import H200
from snippets.fp8_on_tensor_cores import formats as f

TORCH = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}


@pytest.mark.parametrize("fmt", f.FORMATS, ids=lambda fmt: fmt.name)
def test_the_grid_matches_torch_finfo(fmt):
    info = torch.finfo(TORCH[fmt.name])
    summary = f.format_summary(fmt)
    assert summary["max"] == info.max
    assert summary["smallest_normal"] == info.smallest_normal
    assert summary["relative_step"] == info.eps
    # every finite bit pattern, decoded by torch, is on our grid
    codes = torch.arange(256, dtype=torch.uint8).view(TORCH[fmt.name]).float()
    finite = codes[torch.isfinite(codes)].abs().unique().tolist()
    assert finite == fmt.positive_values()


@pytest.mark.parametrize("fmt", f.FORMATS, ids=lambda fmt: fmt.name)
def test_rounding_matches_torch_bit_for_bit(fmt):
    rng = np.random.default_rng(3)
    top = fmt.positive_values()[-1]
    grid = np.array(fmt.positive_values())
    midpoints = (grid[1:] + grid[:-1]) / 2  # exact ties, both signs
    x = np.concatenate(
        [
            rng.standard_normal(4000) * 10.0 ** rng.uniform(-6, 4, 4000),
            midpoints,
            -midpoints,
            [0.0, -0.0],
        ]
    ).astype(np.float32)
    x = np.clip(x, -top, top)  # torch's e5m2 cast overflows to inf; ours saturates
    ours = f.round_to_format(x.astype(np.float64), fmt)
    theirs = torch.from_numpy(x).to(TORCH[fmt.name]).double().numpy()
    assert np.array_equal(ours, theirs)


def test_rounding_saturates_instead_of_overflowing():
    assert f.round_to_format(np.array([1e6, -1e6]), f.E4M3).tolist() == [448.0, -448.0]


def test_bf16_rounding_matches_torch():
    x = np.random.default_rng(1).standard_normal(5000).astype(np.float32) * 1e3
    theirs = torch.from_numpy(x).to(torch.bfloat16).float().numpy()
    assert np.array_equal(f.round_to_bf16(x), theirs)


def test_scales_map_each_block_max_onto_the_format_max():
    x = np.arange(1, 17, dtype=np.float32).reshape(2, 8)
    s = f.scales(x, f.E4M3, 4)
    assert s.shape == (2, 2)
    assert np.allclose(s * 448, [[4, 8], [12, 16]])
    assert f.scales(x, f.E4M3, None).shape == (2, 1)
    assert np.all(f.scales(x, f.E4M3, 0) == 1)
    with pytest.raises(ValueError, match="must divide"):
        f.scales(x, f.E4M3, 3)


def test_quantised_values_are_on_the_scaled_grid():
    a, _ = f.random_pair(4, 4, 64)
    q = f.quantise(a, f.E4M3, 32)
    s = np.repeat(f.scales(a, f.E4M3, 32), 32, axis=1)
    assert np.allclose(f.round_to_format(q / s, f.E4M3), q / s, rtol=1e-6)


def test_the_error_table_orders_as_the_page_says():
    e = f.scheme_errors()
    bf16 = e[("bf16 inputs", "")]
    for scheme, _ in f.SCHEMES[1:]:
        # FP8 with any scale is an order of magnitude worse than bf16 inputs
        assert e[(scheme, "e4m3")]["random"] > 5 * bf16["random"]
        # e5m2 trades precision for range: worse than e4m3 at every scale
        assert e[(scheme, "e5m2")]["random"] > e[(scheme, "e4m3")]["random"]
    # e4m3 without a scale clips the outliers; any scale rescues it
    assert e[("unscaled", "e4m3")]["outliers"] > 0.3
    assert e[("per tensor", "e4m3")]["outliers"] < 0.1
    # finer blocks help on outlier-heavy inputs
    assert e[("block of 32", "e4m3")]["outliers"] < e[("per row", "e4m3")]["outliers"]
    assert e[("float32 inputs", "")]["random"] < 1e-5


def test_the_worst_row_error_sees_a_ruined_row():
    truth = np.array([[1000.0, 1000.0], [1.0, 1.0]])
    result = np.array([[1000.0, 1000.0], [0.0, 0.0]])
    assert f.worst_row_error(result, truth) == 1.0
    assert np.linalg.norm(result - truth) / np.linalg.norm(truth) < 0.001


def test_accumulation_error_grows_with_k_only_for_narrow_accumulators():
    acc = f.accumulation_errors()
    bf16, fp32 = acc["bf16 (8 bits)"], acc["float32 (24 bits)"]
    ks = f.ACCUMULATE_KS
    assert bf16[ks[0]] < bf16[ks[-1]]
    assert fp32[ks[-1]] < 1e-6
    narrow, promoted = (acc[label] for label, _, _ in f.ACCUMULATORS[1:3])
    assert promoted[ks[-1]] < narrow[ks[-1]]


def test_round_to_bits_keeps_that_many_bits():
    assert f.round_to_bits(np.array([1 + 2**-8]), 8)[0] == 1.0  # a tie, to even
    assert f.round_to_bits(np.array([1 + 2**-7]), 8)[0] == 1 + 2**-7


def test_roofline_gain_and_bounds():
    g = f.fp8_gain(16, 8192, 8192)
    assert g["fp8_bound"] == "memory"
    assert g["gain"] == pytest.approx(2.0, rel=0.01)  # bytes halve
    big = f.fp8_gain(8192, 8192, 8192)
    assert big["fp8_bound"] == "compute"
    assert big["gain"] == pytest.approx(
        H200.fp8_dense_flop_per_s / H200.bf16_dense_flop_per_s
    )
    assert f.ridge(fp8=True) == pytest.approx(2 * f.ridge())


def test_scale_bytes():
    assert f.scale_bytes(2, 2, 256, 128) == 4 * 4 * 2
    assert f.scale_bytes(2, 2, 256, None) == 8


def test_facts_and_tables_render():
    facts = f.facts()
    assert facts["e4m3.max"] == "448" and facts["e5m2.max"] == "57344"
    assert all(isinstance(v, str) and v for v in facts.values())
    for table in (
        f.formats_table(),
        f.error_table(),
        f.accumulation_table(),
        f.roofline_table(),
    ):
        assert table.startswith("| ")
    assert f.grid_figure() is not None
