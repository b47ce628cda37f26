"""matmul against its contract (interpreter on CPU, or CUDA).

Evidence kind: these runs show the kernel computes the right values for the
inputs tried; they say nothing about speed, and (under the interpreter,
where programs run one at a time) nothing about races.

Interpreter notes: it cannot ``tl.dot`` bfloat16 tiles (it multiplies the
raw bit patterns, triton-lang/triton#11584), so under it the kernel widens
both tiles to float32 first, which is exact and gives the same float32 sum;
and it rounds float32 to bfloat16 by truncation, so the bf16 output may be
one bf16 ulp from a correctly rounded result (half an ulp on a GPU).
"""

import pytest
import torch
import triton
import triton.language as tl

import kernels.matmul.versions as mm
from kernels.bounds import eps
from tests.helpers.kernel_checks import (
    INTERPRETER,
    assert_bits_unchanged,
    assert_plain_result,
    bit_snapshot,
    dirty_freed_memory,
    random_tensor,
    seed_for,
)

# Why the bound is what it is. The oracle is the float64 product of the same
# inputs. Every output element may differ from it by (a) the float32 sum of
# K terms in another order, at most (K + 1) * 2**-24 * (|A| @ |B|), doubled
# for margin, and (b) the one rounding of that sum to the output dtype:
OUTPUT_ROUNDING = {
    torch.float32: (0.0, "the float32 accumulator is the output: no rounding"),
    torch.float16: (2.0**-11, "round to nearest: half an fp16 ulp"),
    torch.bfloat16: (
        (2.0**-7, "interpreter truncates f32->bf16: one bf16 ulp")
        if INTERPRETER
        else (2.0**-8, "round to nearest: half a bf16 ulp")
    ),
}
DTYPES = list(OUTPUT_ROUNDING)
DTYPE_IDS = [str(d).removeprefix("torch.") for d in DTYPES]
FP16_SUBNORMAL_STEP = 2.0**-24  # absolute spacing of fp16 below 2**-14

SMALL = mm.MatmulConfig(16, 16, 16, GROUP_M=3, num_warps=4, num_stages=2)


def error_bound(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Elementwise bound on |kernel - exact| (see OUTPUT_ROUNDING)."""
    K = a.shape[1]
    magnitude = a.double().abs() @ b.double().abs()
    exact = (a.double() @ b.double()).abs()
    rounding = OUTPUT_ROUNDING[a.dtype][0]
    floor = FP16_SUBNORMAL_STEP if a.dtype == torch.float16 else 0.0
    return 2 * (K + 1) * 2.0**-24 * magnitude + rounding * exact + floor


def assert_within(out: torch.Tensor, exact: torch.Tensor, bound: torch.Tensor):
    """NaN and Inf exactly where ``exact`` has them; elsewhere |err| <= bound."""
    out = out.double().cpu()
    exact, bound = exact.double().cpu(), bound.cpu()
    assert torch.equal(out.isnan(), exact.isnan()), "NaN in different places"
    infinite = exact.isinf()
    assert torch.equal(out.isinf(), infinite), "Inf in different places"
    assert torch.equal(out[infinite], exact[infinite]), "Inf of the wrong sign"
    finite = exact.isfinite()
    excess = (out - exact).abs()[finite] - bound[finite]
    worst = excess.max().item() if excess.numel() else 0.0
    assert worst <= 0, f"error exceeds its bound by {worst:.3g}"


def check(fn, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Run ``fn`` under every contract check that applies to one call."""
    exact = mm.matmul_ref(a.double(), b.double())  # from clones, kept alive
    expected_like = torch.empty(exact.shape, dtype=a.dtype, device=a.device)
    snapshots = bit_snapshot(a), bit_snapshot(b)
    dirty_freed_memory(exact.numel() * 8, a.device)
    out = fn(a, b)
    assert_plain_result(out, expected_like, (a, b))
    assert out.is_contiguous(), "output must be a new contiguous tensor"
    assert_within(out, exact, error_bound(a, b))
    assert_bits_unchanged(a, snapshots[0], "a")
    assert_bits_unchanged(b, snapshots[1], "b")
    return out


def operands(M, N, K, dtype, device, tag=""):
    seed = seed_for("matmul", M, N, K, dtype, tag)
    a = random_tensor((M, K), dtype, device, seed=seed)
    b = random_tensor((K, N), dtype, device, seed=seed + 1)
    return a, b


# With the real configs: 16-bit tiles are 128 x 256 x 64, float32 tiles
# 64 x 64 x 32. (257, 263, 67) is ragged in every dimension and needs
# several programs along M and N for both.
SHAPES = {
    "1x1x1": (1, 1, 1),
    "row-1x257x131": (1, 257, 131),
    "col-255x1x131": (255, 1, 131),
    "exact-256x256x64": (256, 256, 64),
    "primes-257x263x67": (257, 263, 67),
    "k0-5x7x0": (5, 7, 0),
    "empty-0x5x3": (0, 5, 3),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_boundary_shapes_with_the_real_configs(shape, dtype, device):
    check(mm.matmul, *operands(*shape, dtype, device))


@pytest.mark.parametrize("group_m", [1, 3, 4], ids=lambda g: f"group{g}")
def test_program_orders_cover_every_tile(group_m, device):
    # 16 x 16 tiles on (83, 45): 6 tile rows, 3 tile columns. GROUP_M = 1 is
    # the plain row-by-row order; 4 leaves a short last band of 2 rows.
    config = mm.MatmulConfig(16, 16, 16, group_m, num_warps=4, num_stages=2)
    a, b = operands(83, 45, 37, torch.float32, device, tag=group_m)
    check(lambda a, b: mm.matmul_with_config(a, b, config), a, b)


def _layouts(device):
    """(a, b) pairs that are not both plain contiguous tensors."""
    wide = random_tensor((70, 150), torch.bfloat16, device, seed=21)
    tall = random_tensor((150, 90), torch.bfloat16, device, seed=22)
    return {
        "a-transposed": (wide.t()[:45, :33], tall[:33, :70]),
        "b-transposed": (wide[:33, :70], wide.t()[:70, 5:38]),
        "storage-offset": (tall[3:40, 7:60], tall[80:133, 1:88]),
        "stepped-slices": (wide[::2, ::3], tall[::3, ::2][:50]),
    }


@pytest.mark.parametrize(
    "layout", ["a-transposed", "b-transposed", "storage-offset", "stepped-slices"]
)
def test_non_contiguous_inputs(layout, device):
    a, b = _layouts(device)[layout]
    check(lambda a, b: mm.matmul_with_config(a, b, SMALL), a, b)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy on NaN/Inf
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_nan_and_inf_follow_ieee_term_by_term(dtype, device):
    # Stated behaviour: a NaN in A[i, k] makes row i of C NaN; an Inf in
    # A[i, k] makes C[i, j] an Inf of the sign of B[k, j], or NaN where
    # B[k, j] is 0 (Inf * 0); other rows are untouched.
    a, b = operands(40, 37, 35, dtype, device, tag="nonfinite")
    a[3, 20] = float("nan")
    a[17, 33] = float("inf")  # in the K tail: 33 >= 32, the last 16-step
    b[33, 5] = 0.0
    out = check(lambda a, b: mm.matmul_with_config(a, b, SMALL), a, b).cpu()
    assert out[3].isnan().all()
    assert out[17, 5].isnan()
    row = torch.cat([out[17, :5], out[17, 6:]])
    signs = torch.cat([b[33, :5], b[33, 6:]]).cpu().sign()
    assert torch.equal(row, signs.to(row.dtype) * float("inf"))
    assert out[[i for i in range(40) if i not in (3, 17)]].isfinite().all()


def test_repeat_calls_are_identical_and_fresh(device):
    a, b = operands(45, 70, 51, torch.float16, device)
    first = mm.matmul_with_config(a, b, SMALL)
    again = mm.matmul_with_config(a, b, SMALL)
    assert torch.equal(bit_snapshot(first), bit_snapshot(again))
    # Same buffers refilled with new values: no result cached by pointer.
    a.copy_(operands(45, 70, 51, torch.float16, device, tag="refill")[0])
    check(lambda a, b: mm.matmul_with_config(a, b, SMALL), a, b)


def _bad_inputs(device):
    """Each unsupported input: (a, b, error type, argument named)."""
    a = random_tensor((4, 5), torch.float32, device, seed=3)
    b = random_tensor((5, 6), torch.float32, device, seed=4)
    other_device = "meta" if device == "cpu" else "cpu"
    # Meta tensors have shapes but no memory: operands past 2**31 elements.
    huge = torch.empty((2**16 + 1, 2**15), dtype=torch.bfloat16, device="meta")
    tall = torch.empty((2**16 + 1, 1), dtype=torch.bfloat16, device="meta")
    wide = torch.empty((1, 2**15), dtype=torch.bfloat16, device="meta")
    return {
        "a-not-a-tensor": ([[1.0] * 5] * 4, b, TypeError, "a"),
        "b-not-a-tensor": (a, 2.0, TypeError, "b"),
        "a-1d": (a[0], b, ValueError, "a"),
        "b-3d": (a, b[None], ValueError, "b"),
        "a-float64": (a.double(), b.double(), TypeError, "a"),
        "b-int32": (a, b.int(), TypeError, "b"),
        "dtype-mismatch": (a, b.half(), TypeError, "b"),
        "inner-dims-differ": (a, b[:4], ValueError, "b"),
        "device-mismatch": (a, b.to(other_device), ValueError, "b"),
        "a-too-large": (huge, wide.t(), ValueError, "a"),
        "output-too-large": (tall, wide, ValueError, "a and b"),
    }


BAD_IDS = [
    "a-not-a-tensor",
    "b-not-a-tensor",
    "a-1d",
    "b-3d",
    "a-float64",
    "b-int32",
    "dtype-mismatch",
    "inner-dims-differ",
    "device-mismatch",
    "a-too-large",
    "output-too-large",
]


class _NoLaunch:
    """Stands in for the kernel: indexing it (a launch) fails the test."""

    def __getitem__(self, grid):
        raise AssertionError("launched a kernel before validating the inputs")


@pytest.mark.parametrize("case", BAD_IDS)
def test_unsupported_input_is_rejected_before_launch(case, device, monkeypatch):
    a, b, error, argument = _bad_inputs(device)[case]
    monkeypatch.setattr(mm, "matmul_v1_kernel", _NoLaunch())
    monkeypatch.setattr(mm, "matmul_v2_kernel", _NoLaunch())
    for launcher in (mm.matmul, mm.matmul_v1, mm.matmul_v2):
        with pytest.raises(error, match=rf"^{argument}\b"):
            launcher(a, b)


# Version 2 (TMA descriptors, persistent): 16-bit, rows of 16-byte multiples.
SMALL_V2 = mm.MatmulConfig(32, 16, 16, GROUP_M=2, num_warps=4, num_stages=2)
V2_SHAPES = {
    "1x8x8": (1, 8, 8),
    "ragged-m-33x24x40": (33, 24, 40),  # K = 40: the last K step is partial
    "tiles-200x136x72": (200, 136, 72),
}


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=DTYPE_IDS[1:])
@pytest.mark.parametrize("shape", V2_SHAPES.values(), ids=V2_SHAPES.keys())
def test_v2_tma_persistent_loop(shape, dtype, device):
    # Three programs walk all the tiles (up to 63 each): TMA's zero fill and
    # clipped stores cover the ragged edges without masks.
    a, b = operands(*shape, dtype, device, tag="v2")
    check(lambda a, b: mm.matmul_v2(a, b, SMALL_V2, programs=3), a, b)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy on NaN/Inf
def test_v2_nan_and_inf_follow_ieee(device):
    a, b = operands(40, 40, 40, torch.bfloat16, device, tag="v2-nonfinite")
    a[3, 20] = float("nan")
    a[17, 33] = float("inf")
    b[33, 5] = 0.0
    out = check(lambda a, b: mm.matmul_v2(a, b, SMALL_V2, programs=2), a, b)
    assert out[3].isnan().all() and out[17, 5].isnan()


def test_launcher_picks_v2_only_where_tma_can_take_the_operands(device):
    from kernels.launches import record_launches

    a, b = operands(24, 16, 40, torch.bfloat16, device, tag="pick")
    offset = random_tensor((24 * 40 + 1,), torch.bfloat16, device, seed=5)
    shifted = offset[1:].reshape(24, 40)  # starts 2 bytes past alignment
    cases = {
        "matmul_v2_kernel": (a, b),
        "matmul_v1_kernel": (shifted, b),  # misaligned start
    }
    for kernel, (x, y) in cases.items():
        with record_launches() as log:
            check(mm.matmul, x, y)
        assert [launch.kernel for launch in log.launches()] == [kernel]
    with pytest.raises(ValueError, match="16-byte aligned"):
        mm.matmul_v2(shifted, b)


def test_v2_launch_config_table():
    def kernel(dtype, M, N, K, version=2):
        (launch,) = mm.launch_config(dtype, M, N, K, version=version)
        return launch.kernel, launch.constexprs.get("BLOCK_N")

    bf16 = torch.bfloat16
    assert kernel(bf16, 8192, 8192, 8192) == ("matmul_v2_kernel", 256)
    assert kernel(bf16, 1024, 1024, 1024) == ("matmul_v2_kernel", 128)
    assert kernel(bf16, 8192, 8192, 8192, version=1) == ("matmul_v1_kernel", 256)
    assert kernel(bf16, 64, 64, 33)[0] == "matmul_v1_kernel"  # K rows not 16 B
    assert kernel(torch.float32, 64, 64, 64)[0] == "matmul_v1_kernel"
    assert mm.launch_config(bf16, 0, 8, 8) == []
    with pytest.raises(ValueError, match="version"):
        mm.launch_config(bf16, 8, 8, 8, version=4)


# Version 3: version 2 with the epilogue stored in two halves.
SMALL_V3 = mm.MatmulConfig(32, 32, 16, GROUP_M=2, num_warps=4, num_stages=2)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=DTYPE_IDS[1:])
@pytest.mark.parametrize("shape", V2_SHAPES.values(), ids=V2_SHAPES.keys())
def test_v3_split_epilogue(shape, dtype, device):
    # Each half of a tile is stored by its own clipped TMA store: a ragged
    # right edge may cut the second half or drop it entirely (N = 8).
    a, b = operands(*shape, dtype, device, tag="v3")
    check(lambda a, b: mm.matmul_v3(a, b, SMALL_V3, programs=3), a, b)


@pytest.mark.parametrize(
    "shape", [(48, 48, 32), (33, 80, 64)], ids=["even", "ragged-m"]
)
def test_fp8_matmul_accumulates_in_float32_and_rounds_once(shape, device):
    M, N, K = shape
    gen = torch.Generator().manual_seed(M * N + K)
    a = torch.randn(M, K, generator=gen).to(mm.FP8).to(device)
    b = torch.randn(K, N, generator=gen).to(mm.FP8).to(device)
    out = mm.matmul_fp8(a, b, scale_a=0.5, scale_b=3.0, config=SMALL_V3, programs=3)
    # e4m3 times e4m3 is exact in float32, so the float64 truth differs only
    # by float32 summation and the final rounding to bfloat16: the bound of
    # the 16-bit versions (two ulps, as describe.error_bound allows).
    truth = (a.double() @ b.double()) * 1.5
    spread = (a.double().abs() @ b.double().abs()) * 1.5
    bound = 2 * eps(torch.bfloat16) * truth.abs() + spread * K * 2**-24
    assert out.dtype == torch.bfloat16
    assert ((out.double() - truth).abs() <= bound).all()


def test_fp8_matmul_refuses_other_dtypes_and_short_rows():
    a = torch.ones(16, 16, dtype=torch.bfloat16)
    with pytest.raises(TypeError, match="^a must be a 2-D torch.float8_e4m3fn"):
        mm.matmul_fp8(a, a.to(mm.FP8))
    odd = torch.ones(16, 8).to(mm.FP8)  # rows of 8 bytes: no TMA descriptor
    with pytest.raises(ValueError, match="multiples of 16"):
        mm.matmul_fp8(torch.ones(16, 16).to(mm.FP8), odd)


def test_v3_config_adds_the_fourth_stage_only_to_the_large_tiles():
    bf16 = torch.bfloat16
    (large,) = mm.launch_config(bf16, 8192, 8192, 8192, version=3)
    (small,) = mm.launch_config(bf16, 1024, 1024, 1024, version=3)
    (v2,) = mm.launch_config(bf16, 8192, 8192, 8192)
    assert large.kernel == "matmul_v3_kernel" and large.num_stages == 4
    assert v2.num_stages == 3 and v2.constexprs["BLOCK_N"] == 256
    assert large.constexprs["EPILOGUE_SPLIT"] == 2
    assert small.num_stages == 4 and small.constexprs["BLOCK_N"] == 128
    # 4 stages of A and B tiles plus half a C tile, in bytes, within 227 KiB.
    stages = 4 * (128 * 64 + 64 * 256) * 2
    assert stages + 128 * 128 * 2 <= 227 * 1024 < stages + 128 * 256 * 2


def test_napkin_math():
    assert mm.bytes_moved(2, 3, 5, 2) == (10 + 15 + 6) * 2
    assert mm.flops(2, 3, 5) == 60


def test_configs_are_fixed_and_wgmma_shaped():
    # The compiled artifact is built from these numbers (tests/scripts/
    # test_artifacts.py checks that); sm_90a's wgmma wants 4 or 8 warps
    # (one or two warpgroups) and K steps that are multiples of 16.
    for dtype in (torch.bfloat16, torch.float16):
        config = mm.CONFIGS[dtype]
        assert config.num_warps in (4, 8)
        assert config.BLOCK_K == 64 and config.BLOCK_M % 64 == 0


# Known-broken variant: the same loop without the K-tail mask.


@triton.jit
def _matmul_without_k_mask_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_bk,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    tiles_n = tl.cdiv(N, BLOCK_N)
    offs_m = tl.program_id(0) // tiles_n * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(0) % tiles_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    row_in, col_in = offs_m < M, offs_n < N
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        # Wrong: the last step reads BLOCK_K columns even when fewer remain.
        a = tl.load(a_ptrs, mask=row_in[:, None], other=0.0)
        b = tl.load(b_ptrs, mask=col_in[None, :], other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * N + offs_n[None, :]
    tl.store(c_ptrs, acc, mask=row_in[:, None] & col_in[None, :])


def _broken_without_k_mask(a, b):
    (M, K), N = a.shape, b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    grid = (triton.cdiv(M, 16) * triton.cdiv(N, 16),)
    _matmul_without_k_mask_kernel[grid](
        a,
        b,
        c,
        M,
        N,
        K,
        a.stride(0),
        b.stride(0),
        BLOCK_M=16,
        BLOCK_N=16,
        BLOCK_K=16,
    )
    return c


def _padded_operands(M, N, K, device):
    # A and B are views into larger buffers, as slices of a weight matrix
    # are: what lies past column K of A and past row K of B is real memory
    # holding real numbers, so an over-read adds them in silently.
    a_buf = random_tensor((M, K + 16), torch.float32, device, seed=31)
    b_buf = random_tensor((K + 16, N), torch.float32, device, seed=32)
    return a_buf[:, :K], b_buf[:K]


def test_broken_matmul_without_k_tail_mask_is_caught(device):
    a, b = _padded_operands(33, 35, 40, device)  # K = 40: 2.5 steps of 16
    check(lambda a, b: mm.matmul_with_config(a, b, SMALL), a, b)
    with pytest.raises(AssertionError, match="exceeds its bound"):
        check(_broken_without_k_mask, a, b)


def test_broken_matmul_passes_when_k_is_a_multiple_of_block_k(device):
    # Why the boundary matrix needs ragged K: at K = 48 the bug is invisible.
    check(_broken_without_k_mask, *_padded_operands(33, 35, 48, device))
