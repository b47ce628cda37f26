"""attention against its contract (interpreter on CPU, or CUDA).

Evidence kind: these runs show the kernel computes the right values for the
inputs tried; they say nothing about speed, and (under the interpreter,
where programs run one at a time) nothing about races.

Interpreter notes: it cannot ``tl.dot`` bfloat16 tiles (triton-lang/triton
#11584), so under it the kernel widens q, k and v tiles to float32 before
each product; that is exact for the inputs, but the probabilities then meet
v in float32 instead of being rounded to bf16 first, so the interpreter's
bf16 results are slightly more accurate than a GPU's. The bound below holds
for both.
"""

import pytest
import torch
import triton
import triton.language as tl

import kernels.attention.versions as at
from tests.helpers.kernel_checks import (
    INTERPRETER,
    assert_bits_unchanged,
    assert_plain_result,
    bit_snapshot,
    dirty_freed_memory,
    random_tensor,
    seed_for,
)

# Why the bound is what it is. The oracle is attention_ref in float64 on the
# same inputs, with P = softmax(scores) and |V| elementwise. Output row i, d
# may be off by:
#   (a) score error: each score is a float32 sum of D products, then scaled:
#       (D + 4) * 2**-24 * (|q| @ |k|^T) / sqrt(D); it changes p_ij by that
#       much relatively, twice over (numerator and the sum l_i), plus 2**-21
#       for the GPU's approximate exp2;
#   (b) float32 sums of up to S terms in l_i and in P @ V: S * 2**-24;
#   (c) rounding the probabilities to the input dtype before P @ V:
#       PROBABILITY_ROUNDING, again twice (P @ V uses rounded p, l_i does not);
# each relative to (P @ |V|)[i, d]; plus (d) OUTPUT_ROUNDING * |out| and, for
# fp16, probabilities below 2**-14 stored with absolute step 2**-24.
BF16_ROUNDING = 2.0**-7 if INTERPRETER else 2.0**-8  # truncation vs nearest
PROBABILITY_ROUNDING = {
    torch.float32: 0.0,
    torch.float16: 2.0**-11,
    torch.bfloat16: BF16_ROUNDING,
}
OUTPUT_ROUNDING = PROBABILITY_ROUNDING  # one rounding of the float32 result
DTYPES = list(PROBABILITY_ROUNDING)
DTYPE_IDS = [str(d).removeprefix("torch.") for d in DTYPES]


def error_bound(q, k, v, causal, exact):
    """Elementwise bound on |kernel - exact| (see the table above)."""
    S, D = q.shape[-2:]
    # NaN inputs are checked by position; bound the other entries as if the
    # NaN were 0, so one NaN does not make every bound NaN.
    q64, k64, v64 = (t.double().masked_fill(t.isnan(), 0.0) for t in (q, k, v))
    score_magnitude = (q64.abs() @ k64.abs().transpose(-2, -1)) * D**-0.5
    score_error = (D + 4) * 2.0**-24 * score_magnitude.amax(-1, keepdim=True)
    scores = (q64 @ k64.transpose(-2, -1)) * D**-0.5
    if causal:
        sees = torch.ones(S, S, dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~sees, float("-inf"))
    weighted_abs = torch.softmax(scores, -1) @ v64.abs()  # P @ |V|
    relative = 2 * score_error + 2.0**-21 + S * 2.0**-24
    relative = relative + 2 * PROBABILITY_ROUNDING[q.dtype]
    bound = relative * weighted_abs + OUTPUT_ROUNDING[q.dtype] * exact.abs()
    if q.dtype == torch.float16:
        bound = bound + S * 2.0**-24 * v64.abs().amax()
    return bound


def assert_within(out, exact, bound):
    """NaN exactly where ``exact`` has it; elsewhere |error| <= bound."""
    out, exact, bound = out.double().cpu(), exact.double().cpu(), bound.cpu()
    assert torch.equal(out.isnan(), exact.isnan()), "NaN in different places"
    assert torch.equal(out.isinf(), exact.isinf()), "Inf in different places"
    finite = exact.isfinite()
    excess = (out - exact).abs()[finite] - bound[finite]
    worst = excess.max().item() if excess.numel() else 0.0
    assert worst <= 0, f"error exceeds its bound by {worst:.3g}"


def check(fn, q, k, v, causal, exact=None):
    """Run ``fn`` under every contract check that applies to one call."""
    if exact is None:
        exact = at.attention_ref(q.double(), k.double(), v.double(), causal)
    snapshots = [bit_snapshot(t) for t in (q, k, v)]
    dirty_freed_memory(exact.numel() * 8, q.device)
    out = fn(q, k, v, causal)
    expected_like = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    assert_plain_result(out, expected_like, (q, k, v))
    assert out.is_contiguous(), "output must be a new contiguous tensor"
    assert_within(out, exact, error_bound(q, k, v, causal, exact))
    for name, tensor, before in zip("qkv", (q, k, v), snapshots, strict=True):
        assert_bits_unchanged(tensor, before, name)
    return out


def qkv(shape, dtype, device, tag=""):
    seed = seed_for("attention", shape, dtype, tag)
    return [random_tensor(shape, dtype, device, seed=seed + i) for i in range(3)]


def with_config(config, version=at.LATEST):
    return lambda q, k, v, causal: at.attention_with_config(
        q, k, v, causal, config, version=version
    )


# The launcher runs version 3 (TMA descriptors) on these 16-bit inputs and
# version 2 on float32. Version 2's and 3's 16-bit configs use 128 x 128
# tiles, float32 32 x 16. S = 150 gives two query tiles (five for float32)
# and a ragged last key tile; D = 80 is padded to 128 inside the kernel.
SHAPES = {
    "s1-d16": (1, 1, 1, 16),
    "b2-s150-d64": (2, 1, 150, 64),
    "h2-s67-d80": (1, 2, 67, 80),
    "s128-d128": (1, 1, 128, 128),
}


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_boundary_shapes_with_the_real_configs(shape, dtype, causal, device):
    check(at.attention, *qkv(shape, dtype, device), causal)


SMALL = at.AttentionConfig(32, 16, num_warps=4, num_stages=2)


@pytest.mark.parametrize("version", [1, 2, 3, 4], ids=["v1", "v2", "v3", "v4"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("D", [16, 24], ids=lambda d: f"d{d}")
def test_small_tiles_many_programs(D, causal, version, device):
    # S = 73: three query tiles, five key tiles, the last one ragged; each
    # causal diagonal spans two masked key tiles; two heads, so the flattened
    # grid walks two heads' query tiles (versions 2 and 3, causal: in
    # reverse). Version 3: the descriptors' zero fill stops at each head's
    # S = 73 rows and at D = 24 columns of a 32-wide tile.
    q, k, v = qkv((1, 2, 73, D), torch.float16, device)
    check(with_config(SMALL, version), q, k, v, causal)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_v1_with_its_real_config(causal, device):
    # Version 1's 16-bit tiles (128 x 64): two query tiles, a ragged key tile.
    check(at.attention_v1, *qkv((1, 1, 150, 64), torch.bfloat16, device), causal)


def test_v2_with_its_real_config(device):
    # The launcher now runs version 3 on 16-bit inputs; version 2's own
    # 128 x 128 tiles: two query tiles, a ragged key tile, D = 80 padded,
    # causal, so both the free and the masked step run.
    check(at.attention_v2, *qkv((1, 1, 150, 80), torch.float16, device), True)


def test_launch_config_versions():
    def block_n(dtype, D, version=3):
        (launch,) = at.launch_config(dtype, 1, 1, 4096, D, True, version=version)
        return launch.kernel, launch.constexprs["BLOCK_N"], launch.num_warps

    assert block_n(torch.bfloat16, 128) == ("attention_v3_kernel", 128, 8)
    assert block_n(torch.float16, 64) == ("attention_v3_kernel", 128, 8)
    assert block_n(torch.bfloat16, 80) == ("attention_v3_kernel", 128, 8)
    assert block_n(torch.bfloat16, 128, version=2) == ("attention_v2_kernel", 128, 8)
    assert block_n(torch.bfloat16, 128, version=1) == ("attention_v1_kernel", 64, 8)
    # Where a descriptor cannot apply, version 3 is version 2.
    assert block_n(torch.float32, 128) == ("attention_v2_kernel", 16, 4)
    assert block_n(torch.bfloat16, 20) == ("attention_v2_kernel", 128, 8)  # 40 B
    with pytest.raises(ValueError, match="version"):
        at.launch_config(torch.float32, 1, 1, 4, 16, False, version=0)
    # Version 4 where a descriptor applies, else what version 3 takes.
    assert block_n(torch.bfloat16, 128, version=4) == ("attention_v4_kernel", 128, 8)
    assert block_n(torch.float32, 128, version=4) == ("attention_v2_kernel", 16, 4)


def test_consumer_blackwell_takes_narrower_key_blocks_for_versions_3_and_4():
    def tiles(dtype, D, version=3, target="sm_120a"):
        (launch,) = at.launch_config(
            dtype, 1, 1, 4096, D, False, version=version, target=target
        )
        c = launch.constexprs
        return launch.kernel, c["BLOCK_M"], c["BLOCK_N"], launch.num_warps

    assert tiles(torch.bfloat16, 128) == ("attention_v3_kernel", 128, 32, 8)
    assert tiles(torch.bfloat16, 128, version=4) == ("attention_v4_kernel", 128, 32, 8)
    assert tiles(torch.float16, 64) == ("attention_v3_kernel", 128, 64, 8)
    # Hopper and datacenter Blackwell keep version 2's 128-wide key blocks;
    # float32 (version 2's FMA tiles) is the same everywhere.
    assert tiles(torch.bfloat16, 128, target="sm_90a")[2] == 128
    assert tiles(torch.bfloat16, 128, target=None)[2] == 128
    assert tiles(torch.float32, 128) == ("attention_v2_kernel", 32, 16, 4)


@pytest.mark.parametrize("version", [3, 4], ids=["v3", "v4"])
def test_consumer_blackwell_tiles_under_the_interpreter(version, device):
    # The 128 x 32 tiles sm_120a takes, on two query tiles, five key blocks
    # (the last ragged) and the causal diagonal.
    config = at.config_v3_for(torch.bfloat16, 128, "sm_120a")
    q, k, v = qkv((1, 1, 150, 128), torch.bfloat16, device, tag="sm120")
    check(with_config(config, version), q, k, v, True)


@pytest.mark.parametrize("S", [16, 33, 150], ids=lambda s: f"s{s}")
def test_v4_overlapped_steps_with_one_two_and_many_key_blocks(S, device):
    # One key block: the prologue's product feeds the epilogue step alone;
    # two: one overlapped trip; 150 with 16-wide blocks: ten, the last ragged.
    q, k, v = qkv((1, 1, S, 32), torch.bfloat16, device, tag="v4")
    for causal in (False, True):
        check(lambda *a: at.attention_v4(*a, config=SMALL), q, k, v, causal)


def test_launcher_picks_v3_only_where_tma_can_take_the_inputs(device):
    from kernels.launches import record_launches

    shape = (1, 2, 9, 16)
    q, k, v = qkv(shape, torch.bfloat16, device, tag="pick")
    spare = random_tensor((2 * 9 * 16 + 1,), torch.bfloat16, device, seed=7)
    shifted = spare[1:].view(shape)  # contiguous, 2 bytes past alignment
    q20, k20, v20 = qkv((1, 2, 9, 20), torch.bfloat16, device, tag="d20")
    transposed = qkv((1, 9, 2, 16), torch.bfloat16, device, tag="t")[0]
    cases = {
        "attention_v3_kernel": (q, k, v),
        "attention_v2_kernel": (q, shifted, v),  # misaligned start
        "attention_v2_kernel ": (q20, k20, v20),  # rows of 40 bytes
        "attention_v3_kernel ": (transposed.transpose(1, 2), k, v),  # copied
        "attention_v2_kernel  ": (q.float(), k.float(), v.float()),
    }
    for kernel, (x, y, z) in cases.items():
        with record_launches() as log:
            check(at.attention, x, y, z, True)
        assert [launch.kernel for launch in log.launches()] == [kernel.strip()]
    with pytest.raises(ValueError, match="16-byte aligned"):
        at.attention_v3(q, shifted, v)
    with pytest.raises(ValueError, match="16-bit"):
        at.attention_v3(q.float(), k.float(), v.float())


def test_non_contiguous_inputs(device):
    # (B, S, H, D) storage viewed as (B, H, S, D), the usual layout after a
    # projection; v is a slice with a storage offset.
    q, k, _ = (t.transpose(1, 2) for t in qkv((1, 37, 2, 32), torch.float32, device))
    v = qkv((1, 2, 40, 32), torch.float32, device, tag="v")[0][:, :, 3:]
    check(with_config(SMALL), q, k, v, True)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy on NaN/Inf
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_nan_reaches_exactly_the_rows_that_see_it(dtype, causal, device):
    # Stated behaviour: NaN in q row 5 -> output row 5; NaN in k row 40 ->
    # every row that sees key 40 (all rows, or rows >= 40 when causal: the
    # causal mask selects -inf, so a masked NaN score cannot leak).
    q, k, v = qkv((1, 2, 50, 16), dtype, device, tag="nan")
    q[0, 0, 5, 3] = float("nan")
    k[0, 1, 40, 7] = float("nan")
    out = check(with_config(SMALL), q, k, v, causal).cpu()
    assert out[0, 0, 5].isnan().all()
    assert out[0, 0, :5].isfinite().all() and out[0, 0, 6:].isfinite().all()
    if causal:
        assert out[0, 1, 40:].isnan().all() and out[0, 1, :40].isfinite().all()
    else:
        assert out[0, 1].isnan().all()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy on NaN/Inf
def test_nan_in_v_reaches_every_row_that_sees_it(device):
    # Rows that see key j get NaN in every column (p * NaN). Rows that do not
    # see it may also get NaN, depending on the tile (0 * NaN in P @ V), so
    # the contract only promises the rows that see it; the float64 reference
    # poisons every row, so compare only the rows from j on.
    q, k, v = qkv((1, 1, 60, 16), torch.float32, device, tag="nan-v")
    v[0, 0, 45, 0] = float("nan")
    out = at.attention_with_config(q, k, v, True, SMALL).cpu()
    assert out[0, 0, 45:, 0].isnan().all()
    assert out[0, 0, :, 1:].isfinite().all()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy on NaN/Inf
def test_plus_inf_in_k_gives_nan_rows_where_the_reference_does(device):
    # k[j, d] = +inf makes score (i, j) +inf where q[i, d] > 0 (softmax of a
    # row holding +inf is NaN) and -inf where q[i, d] < 0 (weight 0).
    q, k, v = qkv((1, 1, 40, 16), torch.float32, device, tag="inf")
    k[0, 0, 9, 2] = float("inf")
    out = check(with_config(SMALL), q, k, v, False).cpu()
    positive = q[0, 0, :, 2].cpu() > 0
    assert torch.equal(out[0, 0, :, 0].isnan(), positive)
    assert 0 < int(positive.sum()) < 40


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_large_scores_do_not_overflow(dtype, device):
    # Scores past 100: exp(score) overflows even float32 (past 88.7); the
    # running max keeps every exp2 argument <= 0.
    q, k, v = qkv((1, 1, 70, 32), dtype, device, tag="large")
    q = q * 40
    out = check(with_config(SMALL), q, k, v, True)
    assert out.isfinite().all()


def test_repeat_calls_are_identical_and_fresh(device):
    q, k, v = qkv((1, 2, 45, 32), torch.bfloat16, device, tag="repeat")
    first = at.attention_with_config(q, k, v, True, SMALL)
    again = at.attention_with_config(q, k, v, True, SMALL)
    assert torch.equal(bit_snapshot(first), bit_snapshot(again))
    k.copy_(qkv((1, 2, 45, 32), torch.bfloat16, device, tag="refill")[1])
    check(with_config(SMALL), q, k, v, True)


def _bad_inputs(device):
    """Each unsupported input: (q, k, v, causal, error type, argument)."""
    q, k, v = qkv((1, 2, 8, 16), torch.float32, device, tag="bad")
    other_device = "meta" if device == "cpu" else "cpu"
    q8, k8, v8 = qkv((1, 2, 8, 8), torch.float32, device, tag="d8")
    q_wide = qkv((1, 1, 8, 160), torch.float32, device, tag="d160")[0]
    return {
        "q-not-a-tensor": (1.0, k, v, False, TypeError, "q"),
        "v-not-a-tensor": (q, k, [0.0], False, TypeError, "v"),
        "q-float64": (q.double(), k.double(), v.double(), False, TypeError, "q"),
        "k-int32": (q, k.int(), v, False, TypeError, "k"),
        "v-dtype-mismatch": (q, k, v.half(), False, TypeError, "v"),
        "q-3d": (q[0], k[0], v[0], False, ValueError, "q"),
        "k-shape-mismatch": (q, k[:, :, :5], v, False, ValueError, "k"),
        "v-device-mismatch": (q, k, v.to(other_device), False, ValueError, "v"),
        "q-head-dim-8": (q8, k8, v8, False, ValueError, "q"),
        "q-head-dim-160": (q_wide, q_wide, q_wide, False, ValueError, "q"),
        "causal-not-bool": (q, k, v, 1, TypeError, "causal"),
    }


BAD_IDS = [
    "q-not-a-tensor",
    "v-not-a-tensor",
    "q-float64",
    "k-int32",
    "v-dtype-mismatch",
    "q-3d",
    "k-shape-mismatch",
    "v-device-mismatch",
    "q-head-dim-8",
    "q-head-dim-160",
    "causal-not-bool",
]


class _NoLaunch:
    """Stands in for the kernel: indexing it (a launch) fails the test."""

    def __getitem__(self, grid):
        raise AssertionError("launched a kernel before validating the inputs")


@pytest.mark.parametrize("case", BAD_IDS)
def test_unsupported_input_is_rejected_before_launch(case, device, monkeypatch):
    q, k, v, causal, error, argument = _bad_inputs(device)[case]
    monkeypatch.setattr(at, "attention_v1_kernel", _NoLaunch())
    monkeypatch.setattr(at, "attention_v2_kernel", _NoLaunch())
    monkeypatch.setattr(at, "attention_v3_kernel", _NoLaunch())
    launchers = (at.attention, at.attention_v1, at.attention_v2, at.attention_v3)
    for launcher in launchers:
        with pytest.raises(error, match=rf"^{argument}\b"):
            launcher(q, k, v, causal)


def test_head_dim_message_names_the_supported_range(device):
    q = qkv((1, 1, 4, 8), torch.float32, device, tag="msg")[0]
    with pytest.raises(ValueError, match=r"D=8; supported: 16 to 128"):
        at.attention(q, q, q)


def test_napkin_math():
    assert at.bytes_moved(2, 3, 5, 7, 2) == 4 * 2 * 3 * 5 * 7 * 2
    assert at.flops(1, 1, 4, 8, False) == 4 * 8 * 16
    assert at.flops(1, 1, 4, 8, True) == 4 * 8 * 10  # 4 + 3 + 2 + 1 scores


# Known-broken variant: online softmax that forgets to rescale acc.


@triton.jit
def _attention_without_rescale_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    out_ptr,
    S,
    qk_scale,
    D: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + offs_m[:, None] * D + offs_d[None, :])
    m_i = tl.full((BLOCK_M,), -float("inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, D), tl.float32)
    for n0 in range(0, S, BLOCK_N):
        kv_offs = (n0 + offs_n)[:, None] * D + offs_d[None, :]
        k = tl.load(k_ptr + kv_offs)
        v = tl.load(v_ptr + kv_offs)
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * qk_scale
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        # Wrong: acc still holds terms scaled to the old max; it needs
        # acc * alpha[:, None] before the new terms are added.
        acc = tl.dot(p, v, acc, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(out_ptr + offs_m[:, None] * D + offs_d[None, :], out)


def _broken_without_rescale(q, k, v, causal):
    S, D = q.shape[-2:]
    out = torch.empty_like(q)
    _attention_without_rescale_kernel[(triton.cdiv(S, 16),)](
        q, k, v, out, S, at.LOG2_E / D**0.5, D=D, BLOCK_M=16, BLOCK_N=16
    )
    return out


def test_broken_attention_without_rescale_is_caught(device):
    # S = 48 is three key tiles, so the running max moves after the first.
    q, k, v = qkv((1, 1, 48, 16), torch.float32, device, tag="rescale")
    check(with_config(SMALL), q, k, v, False)
    with pytest.raises(AssertionError, match="exceeds its bound"):
        check(_broken_without_rescale, q, k, v, False)


def test_broken_attention_passes_with_a_single_key_tile(device):
    # With one key tile the max never moves, so the bug is invisible: tests
    # need S longer than BLOCK_N.
    q, k, v = qkv((1, 1, 16, 16), torch.float32, device, tag="one-tile")
    check(_broken_without_rescale, q, k, v, False)
