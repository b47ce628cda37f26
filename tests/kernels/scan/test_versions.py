"""cumsum against its contract (interpreter on CPU, or CUDA).

Every prefix is compared with a float64 scan, not with torch.cumsum: the
kernel adds in a different order (within a block, then block totals), so both
carry rounding error. The bound (``summation_bound`` in
tests/helpers/kernel_checks.py) allows a float32 rounding per level of
additions on the sum of magnitudes up to that element, then one ulp of the
output dtype; a full ulp because the interpreter truncates float32 to bfloat16
where a GPU rounds to nearest.

Both versions run every check: ``cumsum_v1`` (three passes) and ``cumsum``
(version 2, one pass with decoupled look-back).

The interpreter runs programs one at a time, in order; these tests show the
values are right, not that the passes are free of races on a GPU (version 1's
three passes are separate launches, which order them there). For version 2
they show neither forward progress nor memory ordering: under the interpreter
every look-back finds its predecessor's prefix at once, so one test seeds the
state by hand to make a block walk back past published totals.
"""

import math

import pytest
import torch

import kernels.scan.versions as scan
from tests.helpers.kernel_checks import (
    INTERPRETER,
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

# Each version's launcher; "v2" is what scan.cumsum runs.
VERSIONS = {"v1": scan.cumsum_v1, "v2": scan.cumsum, "v3": scan.cumsum_v3}


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


def _boundary_cases():
    # The launcher's version at every size; version 1 (unchanged since it
    # was fully tested) at one size per regime, to keep the suite short.
    few = [1, 257, 1025, 4099]
    for version, sizes in (("v2", SIZES), ("v1", few), ("v3", few)):
        for numel in sizes:
            for dtype, dtype_id in zip(DTYPES, DTYPE_IDS, strict=True):
                for sign in ("mixed", "positive"):
                    case_id = f"n{numel}-{dtype_id}-{sign}-{version}"
                    yield pytest.param(numel, dtype, sign, version, id=case_id)


@pytest.mark.parametrize(("numel", "dtype", "sign", "version"), list(_boundary_cases()))
def test_boundary_sizes(numel, dtype, sign, version, device):
    seed = seed_for("scan", numel, dtype, sign)
    x = random_tensor((numel,), dtype, device, seed=seed, positive=sign == "positive")
    check(VERSIONS[version], x)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("numel", "block_size"),
    [(1021, 16), (4099, 64), (257, 16), (256, 16)],
    ids=["n1021-block16", "n4099-block64", "n257-block16", "n256-block16"],
)
def test_carries_through_levels(numel, block_size, version, device):
    # Small blocks: version 1's scan of block totals itself needs carries;
    # version 2 chains dozens of look-backs, with and without a tail.
    x = random_tensor((numel,), torch.float32, device, seed=numel)
    check(lambda t: VERSIONS[version](t, block_size=block_size), x)


@pytest.mark.parametrize("version", VERSIONS)
def test_empty_and_non_contiguous(version, device):
    fn = VERSIONS[version]
    out = fn(torch.empty(0, device=device))
    assert out.shape == (0,)
    x = random_tensor((2 * 1500,), torch.float16, device, seed=3)
    check(fn, x[::2])  # stepped slice
    check(fn, x[7:1507])  # storage offset


@pytest.mark.parametrize("version", VERSIONS)
def test_repeat_calls_are_identical_and_fresh(version, device):
    fn = VERSIONS[version]
    x = random_tensor((4099,), torch.float32, device, seed=4)
    first = bit_snapshot(fn(x))
    # Version 2 on a GPU may group its carries differently on each run (the
    # look-back stops wherever a prefix is ready), so only its values are
    # checked there; under the interpreter the order is fixed.
    if version == "v1" or INTERPRETER:
        assert torch.equal(bit_snapshot(fn(x)), first)
    x.copy_(random_tensor((4099,), torch.float32, device, seed=5))
    check(fn, x)


def _pack(flag: int, values: torch.Tensor) -> torch.Tensor:
    """State words as scan_v2_kernel writes them: flag high, float bits low."""
    bits = values.float().view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    return (flag << 32) | bits


def test_look_back_walks_past_published_totals(device):
    # Blocks 1..3 have published only their own totals (as if still looking
    # back themselves); block 0 its prefix. Block 4 must add all four.
    block, n_blocks = 16, 5
    x = random_tensor((block * n_blocks,), torch.float32, device, seed=9)
    totals = x.reshape(n_blocks, block).double().sum(1).float()
    state = _pack(scan.FLAG_AGGREGATE.value, totals)
    state[0] = _pack(scan.FLAG_PREFIX.value, totals[:1])[0]
    state[4] = 0  # block 4 has published nothing yet
    ticket = torch.tensor([4], dtype=torch.int32, device=device)
    out = torch.zeros_like(x)
    scan.scan_v2_kernel[(1,)](
        x, out, state.to(device), ticket, x.numel(), BLOCK_SIZE=block, MASKED=False
    )
    exact = x.double().cumsum(0)[4 * block :]
    bound = summation_bound(x.double().abs().cumsum(0)[4 * block :], exact, 8, x.dtype)
    assert_within(out[4 * block :], exact, bound, "block 4 after a walk")
    assert int(ticket) == 5  # it took ticket 4 and scanned block 4
    assert (out[: 4 * block] == 0).all()  # and nothing else


@pytest.mark.parametrize(
    "prefix_at", [0, 20], ids=["prefix-two-windows-back", "prefix-in-window"]
)
def test_windowed_look_back_adds_totals_up_to_the_nearest_prefix(prefix_at, device):
    # Block 40 of 41: blocks after `prefix_at` have published only their own
    # totals, block `prefix_at` its inclusive prefix. From block 0 the walk
    # takes two windows of 32 (blocks 39..8, then 7..0); from block 20, one.
    block, n_blocks, me = 16, 41, 40
    x = random_tensor((block * n_blocks,), torch.float32, device, seed=10)
    totals = x.reshape(n_blocks, block).double().sum(1)
    state = _pack(scan.FLAG_AGGREGATE.value, totals.float())
    prefix = totals[: prefix_at + 1].sum().float().reshape(1)
    state[prefix_at] = _pack(scan.FLAG_PREFIX.value, prefix)[0]
    state[:prefix_at] = 0  # never read: the walk stops at the prefix
    state[me] = 0
    carry = torch.zeros(n_blocks, dtype=torch.int32, device=device)
    ticket = torch.tensor([me], dtype=torch.int32, device=device)
    out = torch.zeros_like(x)
    scan.scan_v3_kernel[(1,)](
        x, out, state.to(device), carry, ticket, x.numel(),
        BLOCK_SIZE=block, MASKED=False, WINDOW=scan.LOOKBACK_WINDOW,
    )  # fmt: skip
    exact = x.double().cumsum(0)[me * block :]
    spread = x.double().abs().cumsum(0)[me * block :]
    bound = summation_bound(spread, exact, 12, x.dtype)
    assert_within(out[me * block :], exact, bound, f"block {me} after a windowed walk")
    assert (out[: me * block] == 0).all()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_nan_and_inf_propagate_through_carries(dtype, version, device):
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
        # Small blocks, so the special values cross many blocks' carries.
        fn = lambda t: VERSIONS[version](t, block_size=256)
        out = check(fn, y.to(device)).cpu()
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
    good = scan.cumsum_v1(x, block_size=block_size).cpu().double()
    assert torch.equal(out[:block_size], good[:block_size])
    assert (out[block_size:] < good[block_size:]).all()


BAD = {
    "x-not-a-tensor": ([1.0, 2.0], TypeError, "x must be a torch.Tensor"),
    "x-float64": (torch.ones(3, dtype=torch.float64), TypeError, "x has dtype"),
    "x-int32": (torch.ones(3, dtype=torch.int32), TypeError, "x has dtype"),
    "x-2d": (torch.ones(2, 3), ValueError, r"x must be 1-D, got shape \(2, 3\)"),
    "x-0d": (torch.ones(()), ValueError, r"x must be 1-D, got shape \(\)"),
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", BAD.keys())
def test_unsupported_input_is_rejected(case, version, device):
    x, error, message = BAD[case]
    if isinstance(x, torch.Tensor):
        x = x.to(device)
    with pytest.raises(error, match=message):
        VERSIONS[version](x)


def test_launch_config_gives_main_and_tail_launches():
    # Version 2: whole blocks unmasked, the partial block masked, each only
    # when present; version 1 stays available by number.
    def masked(numel):
        launches = scan.launch_config(torch.float32, numel, block_size=64)
        return [launch.constexprs["MASKED"] for launch in launches]

    assert masked(128) == [False]
    assert masked(129) == [False, True]
    assert masked(5) == [True]
    assert masked(0) == []
    v1 = scan.launch_config(torch.float32, 4099, version=1)
    assert [launch.kernel for launch in v1] == [
        "scan_block_sums_kernel",
        "scan_v1_kernel",
    ]
    with pytest.raises(ValueError, match="version"):
        scan.launch_config(torch.float32, 10, version=4)
    v3 = scan.launch_config(torch.float32, 129, block_size=64, version=3)
    assert [launch.kernel for launch in v3] == ["scan_v3_kernel"] * 2
    assert v3[0].constexprs["WINDOW"] == scan.LOOKBACK_WINDOW == 32


def test_napkin_math():
    assert scan.bytes_moved(1000, 4) == 8000
    assert scan.flops(1000) == 999
    assert scan.flops(0) == 0
