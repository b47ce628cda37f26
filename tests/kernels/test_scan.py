"""cumsum against its contract (interpreter on CPU, or CUDA).

Every prefix is compared with a float64 scan, not with torch.cumsum: the
kernel adds in a different order (within a block, then block totals), so both
carry rounding error. The bound (``summation_bound`` in
tests/helpers/kernel_checks.py) allows a float32 rounding per level of
additions on the sum of magnitudes up to that element, then one ulp of the
output dtype; a full ulp because the interpreter truncates float32 to bfloat16
where a GPU rounds to nearest.

The interpreter runs programs one at a time, in order; these tests show the
values are right, not that the passes are free of races on a GPU (the three
passes are separate launches, which order them there).
"""

import math

import pytest
import torch

import kernels.scan as scan
from tests.helpers.kernel_checks import (
    assert_bits_unchanged,
    assert_plain_result,
    assert_within,
    bit_snapshot,
    dirty_freed_memory,
    random_tensor,
    seed_for,
    summation_bound,
)

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
DTYPE_IDS = ["float32", "float16", "bfloat16"]

# Around 256 and one block (1024), primes, and several blocks.
SIZES = [1, 255, 256, 257, 1021, 1024, 1025, 4099]


def check(fn, x: torch.Tensor) -> torch.Tensor:
    """Run ``fn`` under every contract check that applies to one call."""
    x64 = x.detach().cpu().double()
    exact = x64.cumsum(0)
    expected = torch.empty_like(x)
    snapshot = bit_snapshot(x)
    dirty_freed_memory(4 * x.numel() + 64, x.device)
    out = fn(x)
    assert_plain_result(out, expected, (x,))
    assert out.is_contiguous()
    # Additions along the way: within the block, through the block totals at
    # each level of recursion, and the carry.
    levels = 2 * math.ceil(math.log2(max(x.numel(), 2))) + 2
    bound = summation_bound(x64.abs().cumsum(0), exact, levels, x.dtype)
    assert_within(out, exact, bound, f"cumsum of {x.numel()} {x.dtype}")
    assert_bits_unchanged(x, snapshot, "x")
    return out


@pytest.mark.parametrize("sign", ["mixed", "positive"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("numel", SIZES, ids=lambda n: f"n{n}")
def test_boundary_sizes(numel, dtype, sign, device):
    seed = seed_for("scan", numel, dtype, sign)
    x = random_tensor((numel,), dtype, device, seed=seed, positive=sign == "positive")
    check(scan.cumsum, x)


@pytest.mark.parametrize(
    ("numel", "block_size"),
    [(1021, 16), (4099, 64), (257, 16), (256, 16)],
    ids=["n1021-block16", "n4099-block64", "n257-block16", "n256-block16"],
)
def test_carries_through_levels(numel, block_size, device):
    # Small blocks make the scan of block totals itself need carries.
    x = random_tensor((numel,), torch.float32, device, seed=numel)
    check(lambda t: scan.cumsum(t, block_size=block_size), x)


def test_empty_and_non_contiguous(device):
    out = scan.cumsum(torch.empty(0, device=device))
    assert out.shape == (0,)
    x = random_tensor((2 * 1500,), torch.float16, device, seed=3)
    check(scan.cumsum, x[::2])  # stepped slice
    check(scan.cumsum, x[7:1507])  # storage offset


def test_repeat_calls_are_identical_and_fresh(device):
    x = random_tensor((4099,), torch.float32, device, seed=4)
    first = bit_snapshot(scan.cumsum(x))
    assert torch.equal(bit_snapshot(scan.cumsum(x)), first)
    x.copy_(random_tensor((4099,), torch.float32, device, seed=5))
    check(scan.cumsum, x)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_nan_and_inf_propagate_through_carries(dtype, device):
    # Stated behaviour, as torch.cumsum: NaN poisons its element and every
    # later one; +inf gives +inf until a later -inf, NaN from there on. The
    # special values sit in early blocks, so only the carries take them on.
    nan, inf = float("nan"), float("inf")
    x = random_tensor((3000,), dtype, "cpu", seed=6)
    with_nan = x.clone()
    with_nan[100] = nan
    with_infs = x.clone()
    with_infs[5], with_infs[1500] = inf, -inf
    for y in (with_nan, with_infs):
        out = check(scan.cumsum, y.to(device)).cpu()
        assert out[2000:].isnan().all()
    assert out[5:1500].isposinf().all() and not out[:5].isinf().any()


def test_missing_carry_variant_is_right_inside_one_block(device):
    x = random_tensor((1024,), torch.float32, device, seed=7)
    check(scan.cumsum_missing_carry, x)


@pytest.mark.parametrize(
    ("numel", "block_size"), [(1025, 1024), (300, 16)], ids=["n1025", "n300-block16"]
)
def test_missing_carry_variant_is_wrong_past_one_block(numel, block_size, device):
    # Known-broken: each block restarts from zero, so from the second block
    # on every prefix is short by the total of the blocks before it.
    x = random_tensor((numel,), torch.float32, device, seed=8, positive=True)
    broken = lambda t: scan.cumsum_missing_carry(t, block_size=block_size)
    with pytest.raises(AssertionError, match="outside the bound"):
        check(broken, x)
    out = broken(x).cpu().double()
    good = scan.cumsum(x, block_size=block_size).cpu().double()
    assert torch.equal(out[:block_size], good[:block_size])
    assert (out[block_size:] < good[block_size:]).all()


BAD = {
    "x-not-a-tensor": ([1.0, 2.0], TypeError, "x must be a torch.Tensor"),
    "x-float64": (torch.ones(3, dtype=torch.float64), TypeError, "x has dtype"),
    "x-int32": (torch.ones(3, dtype=torch.int32), TypeError, "x has dtype"),
    "x-2d": (torch.ones(2, 3), ValueError, r"x must be 1-D, got shape \(2, 3\)"),
    "x-0d": (torch.ones(()), ValueError, r"x must be 1-D, got shape \(\)"),
}


@pytest.mark.parametrize("case", BAD.keys())
def test_unsupported_input_is_rejected(case, device):
    x, error, message = BAD[case]
    if isinstance(x, torch.Tensor):
        x = x.to(device)
    with pytest.raises(error, match=message):
        scan.cumsum(x)


def test_napkin_math():
    assert scan.bytes_moved(1000, 4) == 8000
    assert scan.flops(1000) == 999
    assert scan.flops(0) == 0
