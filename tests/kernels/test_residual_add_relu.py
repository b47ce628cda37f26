"""residual_add_relu against its contract (interpreter on CPU, or CUDA).

Evidence kind: these runs show the kernel computes the right values for the
inputs tried; they say nothing about speed, and (under the interpreter,
where programs run one at a time) nothing about races.
"""

import pytest
import torch
import triton
import triton.language as tl

import kernels.residual_add_relu as rar
from tests.helpers.kernel_checks import (
    BF16_RELATIVE_ULP,
    EXACT,
    INTERPRETER,
    Tolerance,
    assert_bits_unchanged,
    assert_close,
    assert_plain_result,
    bit_snapshot,
    dirty_freed_memory,
    random_tensor,
    seed_for,
)

# Why each dtype's bound is what it is. The kernel adds in float32 and rounds
# once on the store, which is what eager PyTorch does, so on a GPU every dtype
# matches exactly. The interpreter rounds float32 to bfloat16 by truncation
# instead of to nearest even, so there bf16 may be one bf16 ulp away.
TOLERANCES = {
    torch.float32: EXACT,
    torch.float16: EXACT,
    torch.bfloat16: (
        Tolerance(0.0, BF16_RELATIVE_ULP, "interpreter truncates f32->bf16: 1 ulp")
        if INTERPRETER
        else EXACT
    ),
}
DTYPES = list(TOLERANCES)
DTYPE_IDS = [str(d).removeprefix("torch.") for d in DTYPES]

# Around 1, 256 and one block (1024), primes, and several programs.
SIZES = [1, 255, 256, 257, 1021, 1024, 1025, 2053, 4099]

# Each version's launcher; "v2" (main launch plus tail) is the default.
VERSIONS = {"v1": rar.residual_add_relu_v1, "v2": rar.residual_add_relu}


def check(fn, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    """Run ``fn`` under every contract check that applies to one call."""
    # The reference works on clones, and both stay alive until the end.
    pristine = x.clone(), residual.clone()
    expected = rar.residual_add_relu_ref(*pristine)
    snapshots = bit_snapshot(x), bit_snapshot(residual)
    dirty_freed_memory(expected.numel() * expected.element_size(), x.device)
    out = fn(x, residual)
    assert_plain_result(out, expected, (x, residual))
    assert out.is_contiguous(), "output must be a new contiguous tensor"
    assert_close(out, expected, TOLERANCES[x.dtype])
    assert_bits_unchanged(x, snapshots[0], "x")
    assert_bits_unchanged(residual, snapshots[1], "residual")
    return out


def _boundary_cases():
    # The launcher's version at every size; version 1 (unchanged since it
    # was fully tested) at one size per regime, to keep the suite short.
    for version, sizes in (("v2", SIZES), ("v1", [1, 257, 1025, 4099])):
        for numel in sizes:
            for dtype, dtype_id in zip(DTYPES, DTYPE_IDS, strict=True):
                for sign in ("mixed", "positive"):
                    case_id = f"n{numel}-{dtype_id}-{sign}-{version}"
                    yield pytest.param(numel, dtype, sign, version, id=case_id)


@pytest.mark.parametrize(("numel", "dtype", "sign", "version"), _boundary_cases())
def test_boundary_sizes(numel, dtype, sign, version, device):
    # All-positive data makes every true output non-zero, so an unwritten tail
    # that happens to hold zeros cannot pass as relu output.
    positive = sign == "positive"
    seed = seed_for("rar", numel, dtype, sign)
    x = random_tensor((numel,), dtype, device, seed=seed, positive=positive)
    r = random_tensor((numel,), dtype, device, seed=seed + 1, positive=positive)
    check(VERSIONS[version], x, r)


SHAPES = {
    "0d": (),
    "empty": (0,),
    "empty-2d": (3, 0),
    "3x5x7": (3, 5, 7),
    "2x3x17x13": (2, 3, 17, 13),
}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_any_shape(shape, device):
    seed = seed_for("rar-shape", shape)
    x = random_tensor(shape, torch.float32, device, seed=seed)
    r = random_tensor(shape, torch.float32, device, seed=seed + 1)
    check(rar.residual_add_relu, x, r)


def _layouts(device):
    """(x, residual) pairs that are not both plain contiguous tensors."""
    big = random_tensor((37, 41), torch.float16, device, seed=11)
    other = random_tensor((41, 37), torch.float16, device, seed=12)
    other_t = random_tensor((37, 41), torch.float16, device, seed=14).t()
    flat = random_tensor((2 * 1031 + 3,), torch.float32, device, seed=13)
    return {
        "x-transposed": (big.t(), other),
        "both-transposed": (big.t(), other_t),
        "storage-offset": (flat[3 : 3 + 1031], flat[1 : 1 + 1031]),
        "stepped-slice": (flat[::2][:1031], flat[1::2][:1031]),
        "expanded-row": (big[0:1].expand(37, 41), big),
    }


@pytest.mark.parametrize(
    "layout",
    [
        "x-transposed",
        "both-transposed",
        "storage-offset",
        "stepped-slice",
        "expanded-row",
    ],
)
def test_non_contiguous_inputs(layout, device):
    x, r = _layouts(device)[layout]
    check(rar.residual_add_relu, x, r)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_nan_and_inf_follow_torch_relu(dtype, device):
    # Stated behaviour: NaN in either input gives NaN (as torch.relu does);
    # +inf stays +inf, -inf becomes 0, inf + -inf is NaN.
    nan, inf = float("nan"), float("inf")
    x = torch.tensor([nan, 1.0, inf, -inf, inf, -inf, -2.0, nan, 3.0], dtype=dtype)
    r = torch.tensor([1.0, nan, 1.0, 1.0, -inf, -inf, nan, nan, -inf], dtype=dtype)
    out = check(rar.residual_add_relu, x.to(device), r.to(device)).cpu()
    expected_nan = [True, True, False, False, True, False, True, True, False]
    assert out.isnan().tolist() == expected_nan
    assert out[2] == inf and out[3] == 0 and out[5] == 0 and out[8] == 0


def test_repeat_calls_are_identical_and_fresh(device):
    x = random_tensor((2053,), torch.float32, device, seed=5)
    r = random_tensor((2053,), torch.float32, device, seed=6)
    first = rar.residual_add_relu(x, r)
    again = rar.residual_add_relu(x, r)
    assert torch.equal(bit_snapshot(first), bit_snapshot(again))
    # Same buffers refilled with new values: no result cached by pointer.
    x.copy_(random_tensor((2053,), torch.float32, device, seed=7))
    check(rar.residual_add_relu, x, r)


def _bad_inputs(device):
    """Each unsupported input: (x, residual, error type, argument named)."""
    good = random_tensor((4, 5), torch.float32, device, seed=3)
    other_device = "meta" if device == "cpu" else "cpu"
    return {
        "x-not-a-tensor": ([[1.0]], good, TypeError, "x"),
        "residual-not-a-tensor": (good, 2.0, TypeError, "residual"),
        "shape-mismatch": (good, good[:, :4], ValueError, "residual"),
        "dtype-mismatch": (good, good.half(), TypeError, "residual"),
        "x-float64": (good.double(), good.double(), TypeError, "x"),
        "x-int32": (good.int(), good.int(), TypeError, "x"),
        "residual-bool": (good, good > 0, TypeError, "residual"),
        "device-mismatch": (good, good.to(other_device), ValueError, "residual"),
    }


BAD_IDS = [
    "x-not-a-tensor",
    "residual-not-a-tensor",
    "shape-mismatch",
    "dtype-mismatch",
    "x-float64",
    "x-int32",
    "residual-bool",
    "device-mismatch",
]


class _NoLaunch:
    """Stands in for the kernel: indexing it (a launch) fails the test."""

    def __getitem__(self, grid):
        raise AssertionError("launched a kernel before validating the inputs")


@pytest.mark.parametrize("case", BAD_IDS)
def test_unsupported_input_is_rejected_before_launch(case, device, monkeypatch):
    x, r, error, argument = _bad_inputs(device)[case]
    monkeypatch.setattr(rar, "residual_add_relu_v1_kernel", _NoLaunch())
    monkeypatch.setattr(rar, "residual_add_relu_v2_kernel", _NoLaunch())
    for launcher in VERSIONS.values():
        with pytest.raises(error, match=rf"^{argument} "):
            launcher(x, r)


def test_launch_config_adds_a_tail_only_for_a_partial_block():
    def kernels(numel, version=2):
        launches = rar.launch_config(torch.float32, numel, version=version)
        return [launch.kernel.removeprefix("residual_add_relu_") for launch in launches]

    assert kernels(2048) == ["v2_kernel"]
    assert kernels(2049) == ["v2_kernel", "v1_kernel"]
    assert kernels(1023) == ["v1_kernel"]
    assert kernels(0) == []
    assert kernels(2049, version=1) == ["v1_kernel"]
    with pytest.raises(ValueError, match="version"):
        rar.launch_config(torch.float32, 5, version=3)


def test_napkin_math():
    assert rar.bytes_moved(1000, 1, 2) == 6000
    assert rar.flops(1000, 1) == 1000


# Known-broken variants: each must fail the check that exists to catch it.


@triton.jit
def _relu_drops_nan_kernel(x_ptr, r_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    total = tl.load(x_ptr + offs, mask=mask) + tl.load(r_ptr + offs, mask=mask)
    # Wrong: `total > 0` is False for NaN, so NaN becomes 0.
    tl.store(out_ptr + offs, tl.where(total > 0, total, 0.0), mask=mask)


def _launch(kernel, x, r, grid_size):
    out = torch.empty_like(x)
    kernel[(grid_size,)](x, r, out, x.numel(), BLOCK_SIZE=256)
    return out


def _broken_nan(x, r):
    return _launch(_relu_drops_nan_kernel, x, r, triton.cdiv(x.numel(), 256))


def _broken_floor_grid(x, r):
    # Wrong: floor division leaves the last partial block unwritten.
    return _launch(rar.residual_add_relu_v1_kernel, x, r, x.numel() // 256)


def _broken_in_place(x, r):
    # Wrong: "returns" its result in x's memory.
    out = rar.residual_add_relu(x, r)
    return x.copy_(out)


def _broken_no_tail(x, r):
    # Wrong: version 2's main launch without its tail; the last partial
    # block is never written.
    out = torch.empty_like(x)
    whole = x.numel() // rar.BLOCK_SIZE
    rar.residual_add_relu_v2_kernel[(whole,)](x, r, out, BLOCK_SIZE=rar.BLOCK_SIZE)
    return out


def test_broken_main_launch_without_tail_is_caught(device):
    x = random_tensor((1031,), torch.float32, device, seed=3, positive=True)
    with pytest.raises(AssertionError):
        check(_broken_no_tail, x, x.clone())


def test_broken_relu_that_drops_nan_is_caught(device):
    x = torch.tensor([float("nan"), 1.0, -1.0], device=device)
    with pytest.raises(AssertionError):
        check(_broken_nan, x, torch.ones_like(x))


def test_broken_floor_divided_grid_is_caught(device):
    x = random_tensor((257,), torch.float32, device, seed=1, positive=True)
    with pytest.raises(AssertionError):
        check(_broken_floor_grid, x, x.clone())


def test_broken_in_place_result_is_caught(device):
    x = random_tensor((257,), torch.float32, device, seed=2)
    with pytest.raises(AssertionError, match="aliases|modified"):
        check(_broken_in_place, x, x.clone())
