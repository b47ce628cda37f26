"""softmax against its contract (interpreter on CPU, or CUDA).

Evidence kind: these runs show the kernels compute the right values for the
inputs tried; they say nothing about speed, and (under the interpreter,
where programs run one at a time) nothing about races.
"""

import pytest
import torch
import triton
import triton.language as tl

import kernels.softmax.versions as sm
from kernels.bounds import eps
from tests.helpers.kernel_checks import (
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

# Why each dtype's bound is what it is. The oracle is float64 softmax of the
# same inputs. Outputs under 1e-30 are compared absolutely (they may be
# subnormal or flush to 0); the others have x - max > -69, since
# exp(-69) < 1e-30. Each carries the relative error of its exp argument
# (x - max rounded, then scaled by log2(e) on a GPU: 2 * 69 * 2**-24 at
# most), of a GPU's approximate exp2 (about 2**-22) and of the row sum (a
# tree plus per-lane chains, under 64 adds deep: 64 * 2**-24): below
# 220 * 2**-24, about 1.3e-5, so rtol 2e-5. The 16-bit outputs add their
# one rounding on the store.
FP32_RTOL = 2e-5
TOLERANCES = {
    torch.float32: Tolerance(
        1e-30,
        FP32_RTOL,
        "exp argument rounding + sum order; outputs "
        "under 1e-30 may be float32 subnormals or underflow to 0",
    ),
    torch.float16: Tolerance(
        2.0**-24,
        FP32_RTOL + 2.0**-11,
        "fp32 error + half an fp16 ulp; "
        "outputs below 2**-14 are subnormal, spaced 2**-24 apart",
    ),
    torch.bfloat16: (
        Tolerance(0.0, FP32_RTOL + 2.0**-7, "interpreter truncates f32->bf16")
        if INTERPRETER
        else Tolerance(0.0, FP32_RTOL + 2.0**-8, "half a bf16 ulp")
    ),
}
DTYPES = list(TOLERANCES)
DTYPE_IDS = [str(d).removeprefix("torch.") for d in DTYPES]


def check(fn, x: torch.Tensor) -> torch.Tensor:
    """Run ``fn`` under every contract check that applies to one call."""
    exact = sm.softmax_ref(x.double())  # from a float64 copy, kept alive
    snapshot = bit_snapshot(x)
    dirty_freed_memory(exact.numel() * 8, x.device)
    out = fn(x)
    expected_like = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    assert_plain_result(out, expected_like, (x,))
    assert out.is_contiguous(), "output must be a new contiguous tensor"
    assert_close(out.double(), exact, TOLERANCES[x.dtype])
    assert_bits_unchanged(x, snapshot, "x")
    return out


def logits(shape, dtype, device, tag="", scale=5.0):
    # Scaled so that the outputs span many orders of magnitude.
    seed = seed_for("softmax", shape, dtype, tag)
    return random_tensor(shape, dtype, device, seed=seed) * scale


def _online_64(x):
    return sm.softmax_v2(x, block=64)


def _persistent_2(x):
    # Two programs: with three rows, program 0 loops over rows 0 and 2.
    return sm.softmax_v3(x, programs=2)


def _one_exp_64(x):
    return sm.softmax_v4(x, block=64)


LAUNCHERS = {
    "fused": sm.softmax_v1,
    "online-64": _online_64,
    "persistent-2": _persistent_2,
    "online-one-exp-64": _one_exp_64,
}

# Columns around one 256-wide block and the 64-wide online chunk, primes.
COLS = [1, 2, 63, 64, 65, 255, 256, 257, 1021]


def _boundary_cases():
    # v1 and v2 at every width; v3 and v4, which share their math, at one
    # width per regime (one chunk, around 64, several chunks).
    for version in LAUNCHERS:
        fewer = version in ("persistent-2", "online-one-exp-64")
        for cols in [1, 63, 65, 257] if fewer else COLS:
            for dtype, dtype_id in zip(DTYPES, DTYPE_IDS, strict=True):
                case_id = f"{version}-c{cols}-{dtype_id}"
                yield pytest.param(version, cols, dtype, id=case_id)


@pytest.mark.parametrize(("version", "cols", "dtype"), list(_boundary_cases()))
def test_boundary_columns(version, cols, dtype, device):
    # Three rows: more than one program along the grid.
    check(LAUNCHERS[version], logits((3, cols), dtype, device))


SHAPES = {"1d-257": (257,), "3d-2x5x37": (2, 5, 37), "empty": (4, 0)}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_any_leading_shape(shape, device):
    check(sm.softmax, logits(shape, torch.float32, device))


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_dispatch_uses_online_softmax_past_the_fused_limit(dtype, device):
    # One column past v1's widest block: softmax must take v2 (4096-wide
    # chunks, so 5 chunks, the last one ragged) and still be right.
    cols = sm.FUSED_MAX_BLOCK + 1
    x = logits((1, cols), dtype, device)
    for fused in (sm.softmax_v1, sm.softmax_v3):
        with pytest.raises(ValueError, match=r"^x has rows of \d+ columns"):
            fused(x)
    check(sm.softmax, x)


def test_launch_config_versions():
    def kernel(cols, version=None):
        (launch,) = sm.launch_config(torch.float32, 4, cols, version=version)
        return launch.kernel

    assert kernel(sm.FUSED_MAX_BLOCK) == "softmax_v3_kernel"
    assert kernel(sm.FUSED_MAX_BLOCK + 1) == "softmax_v4_kernel"
    assert kernel(100, "v1") == "softmax_v1_kernel"
    assert kernel(100, "v2") == "softmax_v2_kernel"
    with pytest.raises(ValueError, match="version"):
        sm.launch_config(torch.float32, 4, 100, version="v5")


def _layouts(device):
    base = logits((40, 90), torch.float16, device, tag="layout")
    return {
        "transposed": base[:, :7].t(),  # column stride 90: copied first
        "row-slice": base[3:30:2, 5:70],  # row stride 180, offset
        "expanded": base[0:1].expand(6, 90),  # row stride 0
    }


@pytest.mark.parametrize("layout", ["transposed", "row-slice", "expanded"])
@pytest.mark.parametrize("version", LAUNCHERS)
def test_non_contiguous_inputs(version, layout, device):
    check(LAUNCHERS[version], _layouts(device)[layout])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy on NaN/Inf
@pytest.mark.parametrize("version", LAUNCHERS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_non_finite_rows_match_torch(dtype, version, device):
    # Stated behaviour, the same as torch.softmax: a row holding NaN or +inf
    # is all NaN; a row of only -inf is all NaN; -inf among finite values
    # gives 0. Row 5 starts with more than one chunk of -inf, so v2's lanes
    # see only -inf first (the case that needs the shift-by-0 guard).
    inf, nan = float("inf"), float("nan")
    x = logits((6, 150), dtype, device, tag="nonfinite").cpu()
    x[0, 17] = nan
    x[1, 140] = inf
    x[2] = -inf
    x[3, ::3] = -inf
    x[4, 100] = inf
    x[4, 120] = -inf
    x[5, :130] = -inf
    out = check(LAUNCHERS[version], x.to(device)).cpu()
    assert out[:3].isnan().all() and out[4].isnan().all()
    assert (out[3, ::3] == 0).all() and (out[5, :130] == 0).all()
    assert out[3].isfinite().all() and out[5].isfinite().all()


@pytest.mark.parametrize("version", LAUNCHERS)
def test_large_logits_do_not_overflow(version, device):
    # exp(100) overflows float16 and exp(1000) overflows float32; subtracting
    # the row max first keeps every exp in (0, 1].
    x = logits((3, 200), torch.float32, device, tag="large", scale=1000.0)
    out = check(LAUNCHERS[version], x)
    assert out.isfinite().all()


def test_repeat_calls_are_identical_and_fresh(device):
    x = logits((5, 300), torch.bfloat16, device, tag="repeat")
    for fn in LAUNCHERS.values():
        assert torch.equal(bit_snapshot(fn(x)), bit_snapshot(fn(x)))
    x.copy_(logits((5, 300), torch.bfloat16, device, tag="refill"))
    check(sm.softmax, x)


def _bad_inputs(device):
    good = logits((4, 5), torch.float32, device, tag="bad")
    return {
        "not-a-tensor": ([1.0, 2.0], TypeError, "x"),
        "float64": (good.double(), TypeError, "x"),
        "int64": (good.long(), TypeError, "x"),
        "bool": (good > 0, TypeError, "x"),
        "0d": (good[0, 0], ValueError, "x"),
    }


class _NoLaunch:
    """Stands in for a kernel: indexing it (a launch) fails the test."""

    def __getitem__(self, grid):
        raise AssertionError("launched a kernel before validating the inputs")


@pytest.mark.parametrize("case", ["not-a-tensor", "float64", "int64", "bool", "0d"])
def test_unsupported_input_is_rejected_before_launch(case, device, monkeypatch):
    x, error, argument = _bad_inputs(device)[case]
    monkeypatch.setattr(sm, "softmax_v1_kernel", _NoLaunch())
    monkeypatch.setattr(sm, "softmax_v2_kernel", _NoLaunch())
    monkeypatch.setattr(sm, "softmax_v3_kernel", _NoLaunch())
    monkeypatch.setattr(sm, "softmax_v4_kernel", _NoLaunch())
    monkeypatch.setattr(sm, "_KERNELS", {})
    launchers = (sm.softmax, sm.softmax_v1, sm.softmax_v2, sm.softmax_v3)
    for fn in (*launchers, sm.softmax_v4):
        with pytest.raises(error, match=rf"^{argument}\b"):
            fn(x)


@pytest.mark.parametrize("block", [0, 48, 8, 64.0])
def test_online_block_must_be_a_power_of_two(block, device):
    x = logits((2, 5), torch.float32, device, tag="block")
    for online in (sm.softmax_v2, sm.softmax_v4):
        with pytest.raises(ValueError, match=r"^block must be a power of two"):
            online(x, block=block)


@pytest.mark.parametrize(
    "shape", [(3, 1000), (2, 3, 17), (1, 1)], ids=["rows", "3-d", "one"]
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def test_backward_matches_autograd(shape, dtype, device):
    # The reference: autograd through torch.softmax in float64.
    x = torch.randn(
        shape, dtype=torch.float64, generator=torch.Generator().manual_seed(3)
    )
    dy = torch.randn(
        shape, dtype=torch.float64, generator=torch.Generator().manual_seed(4)
    )
    x.requires_grad_(True)
    y64 = torch.softmax(x, dim=-1)
    (truth,) = torch.autograd.grad(y64, x, dy)
    y = y64.detach().to(dtype).to(device)
    dx = sm.softmax_backward(y, dy.to(dtype).to(device))
    assert dx.dtype == dtype and dx.shape == y.shape
    # Rounding y and dy to the dtype, then float32 sums over the row.
    scale = y64.detach().abs() * (
        dy.abs() + (dy * y64.detach()).sum(-1, keepdim=True).abs()
    )
    bound = 4 * eps(dtype) * scale + 1e-6 * truth.abs().amax()
    assert (
        (dx.double().cpu() - truth).abs() <= bound + 4 * eps(dtype) * truth.abs()
    ).all()


def test_backward_refuses_a_mismatched_gradient():
    y = torch.softmax(torch.randn(2, 8), -1)
    with pytest.raises(ValueError, match="^dy must be a tensor with y's shape"):
        sm.softmax_backward(y, torch.ones(2, 9))
    (launch,) = sm.launch_config(torch.float32, 2, 8, version="backward")
    assert launch.kernel == "softmax_backward_kernel"


def test_napkin_math():
    assert sm.bytes_moved(3, 7, 2) == 84
    assert sm.flops(3, 7) == 105


# Known-broken variants: each must fail the check that exists to catch it.


@triton.jit
def _online_without_rescale_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    run_max = tl.full((BLOCK,), -float("inf"), tl.float32)
    run_sum = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, cols, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_ptr + row * cols + start + offs, mask=mask, other=-1e30)
        run_max = tl.maximum(run_max, x)
        # Wrong: the terms already summed were taken against a smaller max
        # and are never scaled down by exp(old max - new max).
        run_sum += tl.exp(x - run_max)
    row_max = tl.max(run_max, axis=0)
    row_sum = tl.sum(run_sum * tl.exp(run_max - row_max), axis=0)
    for start in range(0, cols, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_ptr + row * cols + start + offs, mask=mask)
        out = tl.exp(x - row_max) / row_sum
        tl.store(out_ptr + row * cols + start + offs, out, mask=mask)


@triton.jit
def _without_max_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * cols + tl.arange(0, BLOCK)
    mask = tl.arange(0, BLOCK) < cols
    # Wrong: exp of the raw logits overflows to inf for x > 88.7 in float32.
    numerator = tl.exp(tl.load(x_ptr + offs, mask=mask, other=-float("inf")))
    tl.store(out_ptr + offs, numerator / tl.sum(numerator, axis=0), mask=mask)


def _run_broken(kernel, x, block):
    out = torch.empty_like(x)
    kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=block)
    return out


def test_broken_online_softmax_without_rescale_is_caught(device):
    # Ascending logits: the max grows with every chunk, so every chunk's
    # earlier terms are counted too large.
    x = torch.linspace(-3.0, 3.0, 200, device=device).repeat(2, 1)
    check(_online_64, x)
    with pytest.raises(AssertionError, match="Mismatched elements"):
        check(lambda x: _run_broken(_online_without_rescale_kernel, x, 64), x)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy on NaN/Inf
def test_broken_softmax_without_max_is_caught_only_by_large_logits(device):
    broken = lambda x: _run_broken(_without_max_kernel, x, 256)
    check(broken, logits((2, 200), torch.float32, device, tag="small"))
    large = logits((2, 200), torch.float32, device, tag="large", scale=100.0)
    with pytest.raises(AssertionError, match="Mismatched elements|NaN"):
        check(broken, large)
