"""reduce_sum against its contract (interpreter on CPU, or CUDA).

The sum is compared with a float64 sum, not with torch.sum: the kernel adds
in a different order than PyTorch, so both carry rounding error and neither
is the truth. The bound (``summation_bound`` in
tests/helpers/kernel_checks.py) allows one float32 rounding per level of the
tree and then one ulp of the output dtype; a full ulp because the interpreter
truncates float32 to bfloat16 where a GPU rounds to nearest.
"""

import math

import pytest
import torch
import triton

import kernels.reduction.versions as red
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

# Around 256 and one block (4096), primes, and more than one program.
SIZES = [1, 255, 256, 257, 4093, 4096, 4097, 9001]


# Each version's launcher; "v2" (a persistent first stage) is the default.
VERSIONS = {"v1": red.reduce_sum_v1, "v2": red.reduce_sum, "v3": red.reduce_sum_v3}


def check(
    fn, x: torch.Tensor, block_size: int = red.BLOCK_SIZE, steps: int = 1
) -> torch.Tensor:
    """Run ``fn`` under every contract check that applies to one call."""
    exact = x.detach().cpu().double().sum()
    expected = torch.zeros((), dtype=x.dtype, device=x.device)
    snapshot = bit_snapshot(x)
    dirty_freed_memory(4 * x.numel() + 64, x.device)
    out = fn(x)
    assert_plain_result(out, expected, (x,))
    n = max(x.numel(), 2)
    # Levels of float32 additions: log2 of each block, per stage.
    # Version 2's loop adds ``steps`` blocks lane by lane first.
    levels = math.ceil(math.log2(n)) + math.ceil(math.log(n, block_size)) + steps
    abs_sum = x.detach().cpu().double().abs().sum()
    bound = summation_bound(abs_sum, exact, levels, x.dtype)
    assert_within(out, exact, bound, f"sum of {x.numel()} {x.dtype}")
    assert_bits_unchanged(x, snapshot, "x")
    return out


def _boundary_cases():
    # The launcher's version at every size; version 1 (unchanged since it
    # was fully tested) at one size per regime, to keep the suite short.
    few = [1, 257, 4097, 9001]
    for version, sizes in (("v2", SIZES), ("v1", few), ("v3", few)):
        for numel in sizes:
            for dtype, dtype_id in zip(DTYPES, DTYPE_IDS, strict=True):
                for sign in ("mixed", "positive"):
                    case_id = f"n{numel}-{dtype_id}-{sign}-{version}"
                    yield pytest.param(numel, dtype, sign, version, id=case_id)


@pytest.mark.parametrize(("numel", "dtype", "sign", "version"), _boundary_cases())
def test_boundary_sizes(numel, dtype, sign, version, device):
    seed = seed_for("sum", numel, dtype, sign)
    x = random_tensor((numel,), dtype, device, seed=seed, positive=sign == "positive")
    check(VERSIONS[version], x)


@pytest.mark.parametrize(
    ("numel", "block_size", "programs"),
    [(1021, 16, 3), (1024, 16, 64), (1040, 16, 5), (17, 16, 4), (4099, 64, 1)],
    ids=["n1021-3-programs", "n1024-one-step", "n1040-no-tail", "n17", "n4099-1"],
)
def test_persistent_loop_steps_and_tail(numel, block_size, programs, device):
    # More whole blocks than programs: each program loops over several.
    x = random_tensor((numel,), torch.float32, device, seed=numel, positive=True)
    steps = math.ceil(numel // block_size / programs)
    fn = lambda t: red.reduce_sum(t, block_size=block_size, programs=programs)
    check(fn, x, block_size, steps + 1)


def test_launch_config_by_version():
    def kernels(numel, version=2):
        launches = red.launch_config(torch.float32, numel, version=version)
        return [launch.kernel.removeprefix("reduce_sum_") for launch in launches]

    assert kernels(4096) == ["v2_kernel", "v1_kernel"]
    assert kernels(4095) == ["v1_kernel"]
    assert kernels(0) == ["v1_kernel"]
    assert kernels(9001, version=1) == ["v1_kernel"]
    with pytest.raises(ValueError, match="version"):
        red.launch_config(torch.float32, 5, version=0)
    assert kernels(8192, version=3) == ["v3_kernel", "v1_kernel"]
    assert kernels(8191, version=3) == ["v1_kernel"]  # no whole pair


@pytest.mark.parametrize(
    ("numel", "block_size", "programs"),
    [(1021, 16, 3), (1024, 16, 64), (1056, 16, 5), (48, 16, 4)],
    ids=["n1021-3-programs", "n1024-one-trip", "n1056-one-block-left", "n48"],
)
def test_unrolled_loop_pairs_and_rest(numel, block_size, programs, device):
    # Pairs of blocks per trip; what is left (a block and a part) goes to v1.
    x = random_tensor((numel,), torch.float32, device, seed=numel + 1, positive=True)
    steps = math.ceil(numel // (2 * block_size) / programs)
    fn = lambda t: red.reduce_sum_v3(t, block_size=block_size, programs=programs)
    check(fn, x, block_size, 2 * steps + 2)


@pytest.mark.parametrize(
    ("numel", "block_size"),
    [(1021, 16), (4099, 64), (257, 256), (256, 16)],
    ids=["n1021-4-stages", "n4099-3-stages", "n257-2-stages", "n256-exact-tiles"],
)
def test_many_stages(numel, block_size, device):
    # Small blocks force the second stage to run more than once.
    x = random_tensor((numel,), torch.float32, device, seed=numel, positive=True)
    for fn in VERSIONS.values():
        check(lambda t, fn=fn: fn(t, block_size=block_size), x, block_size, 2)


SHAPES = {"0d": (), "3x5x7": (3, 5, 7), "2x3x17x13": (2, 3, 17, 13)}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_any_shape(shape, device):
    x = random_tensor(shape, torch.float32, device, seed=seed_for("sum", shape))
    check(red.reduce_sum, x)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_empty_sums_to_zero(dtype, device):
    out = red.reduce_sum(torch.empty((3, 0), dtype=dtype, device=device))
    assert out.dtype == dtype and out.shape == () and out.item() == 0


def test_non_contiguous_inputs(device):
    x = random_tensor((67, 130), torch.float16, device, seed=9)
    check(red.reduce_sum, x.t())
    check(red.reduce_sum, x[:, 1::3])


def test_deterministic_bit_for_bit(device):
    # Fixed combination order and no atomics: the same bits every call.
    x = random_tensor((9001,), torch.float32, device, seed=4)
    first = bit_snapshot(red.reduce_sum(x))
    for _ in range(3):
        assert torch.equal(bit_snapshot(red.reduce_sum(x)), first)
    # Refilled with new values: a new answer, so nothing is cached.
    x.copy_(random_tensor((9001,), torch.float32, device, seed=5))
    check(red.reduce_sum, x)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_nan_and_inf(dtype, device):
    # Stated behaviour: NaN anywhere gives NaN, +inf alone gives +inf,
    # +inf with -inf gives NaN. The NaN sits in the second block, so it must
    # travel through the second stage.
    nan, inf = float("nan"), float("inf")
    x = random_tensor((5000,), dtype, device, seed=6)
    cases = {4500: [nan], 17: [inf], 9: [inf, -inf]}
    expected = {4500: "nan", 17: "inf", 9: "nan"}
    for position, values in cases.items():
        y = x.clone()
        y[position : position + len(values)] = torch.tensor(values, dtype=dtype)
        result = red.reduce_sum(y).item()
        got = "nan" if math.isnan(result) else str(result)
        assert got == expected[position], f"case at {position}: {result}"


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_float16_overflow_becomes_inf_like_torch(device):
    # Accumulated in float32 without trouble; the final rounding overflows.
    x = torch.full((4096,), 30000.0, dtype=torch.float16, device=device)
    assert red.reduce_sum(x).item() == math.inf == red.reduce_sum_ref(x).item()


BAD = {
    "x-not-a-tensor": ([1.0, 2.0], "x must be a torch.Tensor"),
    "x-float64": (torch.ones(3, dtype=torch.float64), "x has dtype torch.float64"),
    "x-int64": (torch.ones(3, dtype=torch.int64), "x has dtype torch.int64"),
    "x-bool": (torch.ones(3, dtype=torch.bool), "x has dtype torch.bool"),
}


@pytest.mark.parametrize("case", BAD.keys())
def test_unsupported_input_is_rejected(case, device):
    x, message = BAD[case]
    if isinstance(x, torch.Tensor):
        x = x.to(device)
    with pytest.raises(TypeError, match=message):
        red.reduce_sum(x)


def test_napkin_math():
    assert red.bytes_moved(1000, 2) == 2002
    assert red.flops(1000) == 999
    assert red.flops(0) == 0


# Known-broken variants: each must fail the check that exists to catch it.


def _broken_floor_grid(x):
    # Wrong: floor division drops the last partial block.
    values = x.contiguous().reshape(-1)
    n_blocks = values.numel() // 256
    partials = torch.empty(n_blocks, dtype=torch.float32, device=x.device)
    red.reduce_sum_v1_kernel[(n_blocks,)](
        values, partials, values.numel(), BLOCK_SIZE=256
    )
    return red.reduce_sum(partials).to(x.dtype)


def _broken_single_stage(x):
    # Wrong: keeps the first block's partial and forgets the second stage.
    values = x.contiguous().reshape(-1)
    n_blocks = triton.cdiv(values.numel(), 256)
    partials = torch.empty(n_blocks, dtype=x.dtype, device=x.device)
    red.reduce_sum_v1_kernel[(n_blocks,)](
        values, partials, values.numel(), BLOCK_SIZE=256
    )
    return partials[0].clone()


@pytest.mark.parametrize("broken", [_broken_floor_grid, _broken_single_stage])
def test_broken_variants_are_caught(broken, device):
    x = random_tensor((700,), torch.float32, device, seed=8, positive=True)
    with pytest.raises(AssertionError, match="outside the bound"):
        check(broken, x)
