"""Attention forward, FlashAttention style: ``softmax(q k^T / sqrt(D)) v``.

Versions
    ``attention_v1_kernel``: one program per ``BLOCK_M`` queries of one (batch,
    head). It walks the keys ``BLOCK_N`` at a time, keeping per query a running
    max ``m``, a running sum ``l`` of ``exp(score - m)`` and an unnormalized
    output ``acc``; when ``m`` grows, ``l`` and ``acc`` are rescaled by
    ``exp(old m - new m)`` (Dao et al., FlashAttention, 2022, and
    FlashAttention-2, 2023). The S x S score matrix never leaves the chip.
    Tiles that need no mask (below the causal diagonal, inside S) run a
    mask-free step; only the diagonal and ragged-end tiles pay for masks.

    ``attention_v2_kernel``: the same algorithm with 128-wide key blocks
    for 16-bit inputs (half as many steps, each rescale amortized over
    twice the keys); the softmax scale folded into the exponent as one
    multiply-add, ``exp2(qk * scale - m)``, with the max taken on the raw
    scores; and, when causal, each head's query tiles in descending order,
    so the heaviest tiles (the most keys) start first and the light ones
    fill the tail. ``attention_v1`` keeps version 1, ``attention_v2``
    version 2 (the launcher's choice where version 3 cannot go).

    ``attention_v3_kernel`` (the launcher's choice for 16-bit inputs whose
    rows of D elements span multiples of 16 bytes, 16-byte aligned):
    version 2's math and tiles, with q, k, v and the output moved by TMA
    tensor descriptors built on the host (``TensorDescriptor``), each
    seeing its tensor as (B * H, S, D). The hardware copies whole tiles
    into shared memory (``UTMALDG`` in SASS), filling rows past S and
    columns past D with zeros, and stores the output through one
    (``UTMASTG``) clipped to S and D: no load or store masks, no address
    arithmetic per element. Other inputs (float32, D = 20, a misaligned
    view) take version 2, so ``launch_config`` describes contiguous inputs.
    No warp specialisation: on sm_90a, Triton 3.6 and 3.8 both ignore
    ``tl.range(..., warp_specialize=True)`` on this loop at 8 warps, and
    their Hopper warp-specialization pass fails on it at 4.

Contract
    ``q``, ``k``, ``v`` of one shape (B, H, S, D), one dtype (float32, float16
    or bfloat16) and one device; any S >= 1; any head dimension D from 16 to
    128 (D that is not a power of two is zero-padded to one inside the
    kernel); ``causal`` a bool (query i sees keys 0..i). Scale 1 / sqrt(D).
    Scores, softmax and the output sum are float32; the probabilities are
    rounded to the input dtype for the second product (as FlashAttention
    does), float32 inputs use IEEE float32 dot products. Inputs that are not
    contiguous are copied first. The result is a new contiguous tensor of
    q's shape and dtype; inputs are never written.
    Non-finite values: a NaN in q row i makes output row i NaN; a NaN in k
    row j makes NaN every row that sees key j (all rows, or rows i >= j when
    causal: masked scores are replaced, not multiplied by zero, so masked
    NaN does not leak); a NaN in v row j makes NaN at least every row that
    sees key j. A +inf in k[j, d] gives query i a +inf score, hence a NaN
    row, where q[i, d] > 0, and a -inf score, hence weight 0, where
    q[i, d] < 0, as in the reference. Large finite scores do not overflow.
    Anything else raises ``TypeError`` or ``ValueError`` naming the argument.

Configs (fixed, so compiled artifacts are reproducible)
    16-bit, D <= 64: 128 x 64 tiles, 4 warps, 3 stages. 16-bit, D > 64:
    128 x 64 tiles, 8 warps, 3 stages. float32: 32 x 16 tiles, 4 warps, 2
    stages (IEEE float32 products use FMA units and registers; larger tiles
    spill). Versions 2 and 3, 16-bit: 128 x 128 tiles, 8 warps, 3 stages
    for D <= 64, 2 above. The interpreter runs the same configs.
    Consumer Blackwell (sm_120, RTX 50-class; ``device_target``) has no
    wgmma: both products run on mma.sync with their float32 tiles in
    registers, where the 128 x 128 tiles spill. Versions 3 and 4 take
    narrower key blocks there (``config_v3_for``): 128 x 32 above D = 64,
    128 x 64 at or below, 8 warps, 3 stages.

Napkin math
    ``bytes_moved``: read q, k, v once and write the output once,
    4 * B * H * S * D * itemsize. ``flops``: two matrix products of
    2 * S * S * D each per (batch, head), 4 * B * H * S * S * D; causal
    attention needs the scores on and below the diagonal, S * (S + 1) / 2 of
    the S * S, so its count is 4 * B * H * D * S * (S + 1) / 2. Softmax work
    is not counted. Per byte that is about S / 2 flops (non-causal, 2-byte
    floats): compute-bound for long sequences.
"""

import math
from dataclasses import dataclass

import torch
import triton
import triton.language as tl

from kernels.descriptor import Launch
from kernels.matmul.versions import consumer, device_target

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
MIN_HEAD_DIM, MAX_HEAD_DIM = 16, 128
# exp(x) = exp2(x * log2(e)), and exp2 is one instruction on the GPU.
LOG2_E = math.log2(math.e)


@dataclass(frozen=True)
class AttentionConfig:
    BLOCK_M: int  # queries per program
    BLOCK_N: int  # keys per step
    num_warps: int
    num_stages: int


def config_for(dtype: torch.dtype, head_dim: int) -> AttentionConfig:
    """The fixed launch config for one dtype and head dimension."""
    if dtype == torch.float32:
        # IEEE float32 dots run on the FMA units with operands in registers;
        # bigger tiles spill at D = 128 (see the compiled artifact).
        return AttentionConfig(32, 16, num_warps=4, num_stages=2)
    if head_dim <= 64:
        return AttentionConfig(128, 64, num_warps=4, num_stages=3)
    return AttentionConfig(128, 64, num_warps=8, num_stages=3)


def config_v2_for(dtype: torch.dtype, head_dim: int) -> AttentionConfig:
    """Version 2's fixed config: 128-wide key blocks for 16-bit inputs."""
    if dtype == torch.float32:
        return config_for(dtype, head_dim)
    # Two warpgroups: with 4 warps a 128 x 128 score tile overflows the
    # registers (255 and a spill at D = 64, see the artifact's history).
    if head_dim <= 64:
        return AttentionConfig(128, 128, num_warps=8, num_stages=3)
    return AttentionConfig(128, 128, num_warps=8, num_stages=2)


#: Versions 3 and 4 on a consumer target (sm_120a): key blocks narrow enough
#: that the score tile and the output accumulator fit a thread's registers
#: without spilling (the sm_120a artifacts, ``-sm120`` builds).
_CONSUMER_WIDE_HEADS = AttentionConfig(128, 32, num_warps=8, num_stages=3)
_CONSUMER_NARROW_HEADS = AttentionConfig(128, 64, num_warps=8, num_stages=3)


def config_v3_for(
    dtype: torch.dtype, head_dim: int, target: str | None = None
) -> AttentionConfig:
    """Versions 3 and 4's config: version 2's, except for 16-bit inputs on a
    consumer target ("sm_120a"), where narrower key blocks keep the tiles
    in registers."""
    if consumer(target) and dtype != torch.float32:
        return _CONSUMER_NARROW_HEADS if head_dim <= 64 else _CONSUMER_WIDE_HEADS
    return config_v2_for(dtype, head_dim)


LATEST = 3


def tma_shape_ok(dtype: torch.dtype, D: int) -> bool:
    """Whether contiguous (B, H, S, D) inputs of this dtype suit version 3:
    a 16-bit dtype, and rows of D elements spanning a multiple of 16 bytes,
    as a TMA descriptor requires of every stride but the last."""
    return dtype in (torch.bfloat16, torch.float16) and (D * 2) % 16 == 0


def launch_config(
    dtype: torch.dtype,
    B: int,
    H: int,
    S: int,
    D: int,
    causal: bool,
    config: AttentionConfig | None = None,
    *,
    version: int = LATEST,
    warp_specialize: bool = False,
    target: str | None = None,
) -> list[Launch]:
    """One launch with the version's config (or ``config``), none for empty
    inputs. Version 3 (for contiguous inputs) takes ``attention_v3_kernel``
    where ``tma_shape_ok``, else version 2. ``warp_specialize`` asks version
    4's loops for Triton's automatic warp specialisation
    (``tl.range(warp_specialize=True)``). ``target`` ("sm_120a") picks
    versions 3 and 4's tiles for that architecture; None: Hopper's. The
    launcher adds ``INTERPRETED``, which follows the device."""
    if B * H * S * D == 0:
        return []
    if version not in (1, 2, 3, 4):
        raise ValueError(f"version must be 1, 2, 3 or 4, got {version}")
    if version == 4 and tma_shape_ok(dtype, D):
        config = config or config_v3_for(dtype, D, target)
        constexprs = {
            "BLOCK_D": max(16, triton.next_power_of_2(D)),
            "BLOCK_M": config.BLOCK_M,
            "BLOCK_N": config.BLOCK_N,
            "CAUSAL": causal,
            "WARP_SPECIALIZE": warp_specialize,
        }
        options = {"num_warps": config.num_warps, "num_stages": config.num_stages}
        return [Launch("attention_v4_kernel", constexprs, **options)]
    version = min(version, 3)  # version 4 falls back to version 3, then 2
    if version == 3 and tma_shape_ok(dtype, D):
        config = config or config_v3_for(dtype, D, target)
        constexprs = {
            "BLOCK_D": max(16, triton.next_power_of_2(D)),
            "BLOCK_M": config.BLOCK_M,
            "BLOCK_N": config.BLOCK_N,
            "CAUSAL": causal,
        }
        options = {"num_warps": config.num_warps, "num_stages": config.num_stages}
        return [Launch("attention_v3_kernel", constexprs, **options)]
    version = min(version, 2)  # version 3 falls back to version 2
    kernel = "attention_v1_kernel" if version == 1 else "attention_v2_kernel"
    config = config or (config_for if version == 1 else config_v2_for)(dtype, D)
    constexprs = {
        "HEAD_DIM": D,
        "BLOCK_D": max(16, triton.next_power_of_2(D)),  # D = 80 pads to 128
        "BLOCK_M": config.BLOCK_M,
        "BLOCK_N": config.BLOCK_N,
        "CAUSAL": causal,
        "DOT_PRECISION": "ieee" if dtype == torch.float32 else "tf32",
    }
    options = {"num_warps": config.num_warps, "num_stages": config.num_stages}
    return [Launch(kernel, constexprs, **options)]


def attention_ref(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False
) -> torch.Tensor:
    """Eager attention in the inputs' dtype; float64 inputs give an oracle."""
    scores = (q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5
    if causal:
        S = q.shape[-2]
        sees = torch.ones(S, S, dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~sees, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


@triton.jit
def _attend(
    acc, m_i, l_i, q, k_ptrs, v_ptrs, offs_m, offs_n, d_in, S, qk_scale,
    start, stop, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
    MASKED: tl.constexpr, CAUSAL: tl.constexpr, DOT_PRECISION: tl.constexpr,
    INTERPRETED: tl.constexpr,
):  # fmt: skip
    """Fold keys start..stop (BLOCK_N at a time) into acc, m_i and l_i."""
    for n0 in range(start, stop, BLOCK_N):
        key = n0 + offs_n
        kv_mask = d_in[None, :]  # broadcast over keys by tl.load
        if MASKED:
            kv_mask = kv_mask & (key < S)[:, None]
        k = tl.load(k_ptrs + n0 * HEAD_DIM, mask=kv_mask, other=0.0)
        v = tl.load(v_ptrs + n0 * HEAD_DIM, mask=kv_mask, other=0.0)
        if INTERPRETED:  # the CPU interpreter cannot tl.dot bfloat16 tiles
            k = k.to(tl.float32)
            v = v.to(tl.float32)
        # Scores in log2 units: exp2(s) below equals exp(q.k / sqrt(D)).
        s = tl.dot(q, tl.trans(k), input_precision=DOT_PRECISION) * qk_scale
        if MASKED:
            keep = (key < S)[None, :]
            if CAUSAL:
                keep = keep & (key[None, :] <= offs_m[:, None])
            s = tl.where(keep, s, -float("inf"))  # select: a NaN score drops
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)  # rescales terms taken against m_i
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc, input_precision=DOT_PRECISION)
        m_i = m_new
    return acc, m_i, l_i


@triton.jit
def attention_v1_kernel(
    q_ptr, k_ptr, v_ptr, out_ptr, S, qk_scale,
    HEAD_DIM: tl.constexpr, BLOCK_D: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    CAUSAL: tl.constexpr, DOT_PRECISION: tl.constexpr,
    INTERPRETED: tl.constexpr,
):  # fmt: skip
    # One grid axis for (head, query tile): axis 1 allows only 65535 programs,
    # and B * H passes that. Consecutive programs share a head's K and V.
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(S, BLOCK_M)
    tile_m = pid % tiles_m
    # Contiguous (B, H, S, D): head bh starts bh * S * D elements in.
    head = (pid // tiles_m).to(tl.int64) * S * HEAD_DIM
    offs_m = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_in = offs_d < HEAD_DIM  # False only in the padding of a D like 80
    q_ptrs = q_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :]
    q_mask = (offs_m[:, None] < S) & d_in[None, :]
    q = tl.load(q_ptrs, mask=q_mask, other=0.0)
    if INTERPRETED:
        q = q.to(tl.float32)
    kv_offs = head + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
    m_i = tl.full((BLOCK_M,), -float("inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)
    # Keys below `free_end` need no mask: inside S and, when causal, at or
    # below the diagonal for every query of this tile.
    if CAUSAL:
        free_end = tile_m * BLOCK_M  # a multiple of BLOCK_N, below S
        stop = tl.minimum((tile_m + 1) * BLOCK_M, S)
    else:
        free_end = S // BLOCK_N * BLOCK_N
        stop = S
    acc, m_i, l_i = _attend(
        acc, m_i, l_i, q, k_ptr + kv_offs, v_ptr + kv_offs, offs_m, offs_n,
        d_in, S, qk_scale, 0, free_end, HEAD_DIM, BLOCK_N,
        False, CAUSAL, DOT_PRECISION, INTERPRETED,
    )  # fmt: skip
    acc, m_i, l_i = _attend(
        acc, m_i, l_i, q, k_ptr + kv_offs, v_ptr + kv_offs, offs_m, offs_n,
        d_in, S, qk_scale, free_end, stop, HEAD_DIM, BLOCK_N,
        True, CAUSAL, DOT_PRECISION, INTERPRETED,
    )  # fmt: skip
    # Every query sees key 0, so l_i > 0 unless a NaN or +inf arrived.
    out = acc / l_i[:, None]
    out_ptrs = out_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(out_ptrs, out.to(out_ptr.dtype.element_ty), mask=q_mask)


@triton.jit
def _attend_v2(
    acc, m_i, l_i, q, k_ptrs, v_ptrs, offs_m, offs_n, d_in, S, qk_scale,
    start, stop, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
    MASKED: tl.constexpr, CAUSAL: tl.constexpr, DOT_PRECISION: tl.constexpr,
    INTERPRETED: tl.constexpr,
):  # fmt: skip
    """Version 2's step: the max on raw scores, the scale inside exp2."""
    # --8<-- [start:attend-v2-loop]
    for n0 in range(start, stop, BLOCK_N):
        key = n0 + offs_n
        kv_mask = d_in[None, :]
        if MASKED:
            kv_mask = kv_mask & (key < S)[:, None]
        k = tl.load(k_ptrs + n0 * HEAD_DIM, mask=kv_mask, other=0.0)
        v = tl.load(v_ptrs + n0 * HEAD_DIM, mask=kv_mask, other=0.0)
        if INTERPRETED:  # the CPU interpreter cannot tl.dot bfloat16 tiles
            k = k.to(tl.float32)
            v = v.to(tl.float32)
        qk = tl.dot(q, tl.trans(k), input_precision=DOT_PRECISION)
        if MASKED:
            keep = (key < S)[None, :]
            if CAUSAL:
                keep = keep & (key[None, :] <= offs_m[:, None])
            qk = tl.where(keep, qk, -float("inf"))  # select: a NaN score drops
        # The scale is positive, so the max of the raw scores, scaled once
        # per row, is the max of the scaled scores.
        m_new = tl.maximum(m_i, tl.max(qk, axis=1) * qk_scale)
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(qk * qk_scale - m_new[:, None])  # one multiply-add each
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc, input_precision=DOT_PRECISION)
        m_i = m_new
    # --8<-- [end:attend-v2-loop]
    return acc, m_i, l_i


@triton.jit
def attention_v2_kernel(
    q_ptr, k_ptr, v_ptr, out_ptr, S, qk_scale,
    HEAD_DIM: tl.constexpr, BLOCK_D: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    CAUSAL: tl.constexpr, DOT_PRECISION: tl.constexpr,
    INTERPRETED: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(axis=0)
    # --8<-- [start:v2-tile-order]
    tiles_m = tl.cdiv(S, BLOCK_M)
    tile_m = pid % tiles_m
    if CAUSAL:  # heavy first: the last query tile sees the most keys
        tile_m = tiles_m - 1 - tile_m
    head = (pid // tiles_m).to(tl.int64) * S * HEAD_DIM
    offs_m = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_in = offs_d < HEAD_DIM
    q_ptrs = q_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :]
    q_mask = (offs_m[:, None] < S) & d_in[None, :]
    q = tl.load(q_ptrs, mask=q_mask, other=0.0)
    if INTERPRETED:
        q = q.to(tl.float32)
    kv_offs = head + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
    m_i = tl.full((BLOCK_M,), -float("inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)
    if CAUSAL:
        free_end = tile_m * BLOCK_M
        stop = tl.minimum((tile_m + 1) * BLOCK_M, S)
    else:
        free_end = S // BLOCK_N * BLOCK_N
        stop = S
    # --8<-- [end:v2-tile-order]
    acc, m_i, l_i = _attend_v2(
        acc, m_i, l_i, q, k_ptr + kv_offs, v_ptr + kv_offs, offs_m, offs_n,
        d_in, S, qk_scale, 0, free_end, HEAD_DIM, BLOCK_N,
        False, CAUSAL, DOT_PRECISION, INTERPRETED,
    )  # fmt: skip
    acc, m_i, l_i = _attend_v2(
        acc, m_i, l_i, q, k_ptr + kv_offs, v_ptr + kv_offs, offs_m, offs_n,
        d_in, S, qk_scale, free_end, stop, HEAD_DIM, BLOCK_N,
        True, CAUSAL, DOT_PRECISION, INTERPRETED,
    )  # fmt: skip
    out = acc / l_i[:, None]
    out_ptrs = out_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(out_ptrs, out.to(out_ptr.dtype.element_ty), mask=q_mask)


@triton.jit
def _attend_v3(
    acc, m_i, l_i, q, k_desc, v_desc, head, offs_m, offs_n, S, qk_scale,
    start, stop, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
    MASKED: tl.constexpr, CAUSAL: tl.constexpr, INTERPRETED: tl.constexpr,
):  # fmt: skip
    """Version 3's step: version 2's math on tiles the TMA unit copies."""
    for n0 in range(start, stop, BLOCK_N):
        # One bulk tensor copy per tile; keys past S and columns past D
        # arrive as zeros, so the loads need no masks.
        k = k_desc.load([head, n0, 0]).reshape(BLOCK_N, BLOCK_D)
        v = v_desc.load([head, n0, 0]).reshape(BLOCK_N, BLOCK_D)
        if INTERPRETED:  # the CPU interpreter cannot tl.dot bfloat16 tiles
            k = k.to(tl.float32)
            v = v.to(tl.float32)
        qk = tl.dot(q, tl.trans(k))
        if MASKED:  # a zero key past S still scores 0: drop it
            key = n0 + offs_n
            keep = (key < S)[None, :]
            if CAUSAL:
                keep = keep & (key[None, :] <= offs_m[:, None])
            qk = tl.where(keep, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, axis=1) * qk_scale)
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(qk * qk_scale - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new
    return acc, m_i, l_i


@triton.jit
def attention_v3_kernel(
    q_desc, k_desc, v_desc, o_desc, S, qk_scale,
    BLOCK_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    CAUSAL: tl.constexpr, INTERPRETED: tl.constexpr,
):  # fmt: skip
    # Each descriptor sees its tensor as (B * H, S, D): a copy never crosses
    # into the next head, whatever S is.
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(S, BLOCK_M)
    tile_m = pid % tiles_m
    if CAUSAL:  # heavy first, as in version 2
        tile_m = tiles_m - 1 - tile_m
    head = pid // tiles_m
    row = tile_m * BLOCK_M
    offs_m = row + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    q = q_desc.load([head, row, 0]).reshape(BLOCK_M, BLOCK_D)
    if INTERPRETED:
        q = q.to(tl.float32)
    m_i = tl.full((BLOCK_M,), -float("inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)
    if CAUSAL:
        free_end = row
        stop = tl.minimum(row + BLOCK_M, S)
    else:
        free_end = S // BLOCK_N * BLOCK_N
        stop = S
    acc, m_i, l_i = _attend_v3(
        acc, m_i, l_i, q, k_desc, v_desc, head, offs_m, offs_n, S, qk_scale,
        0, free_end, BLOCK_N, BLOCK_D, False, CAUSAL, INTERPRETED,
    )  # fmt: skip
    acc, m_i, l_i = _attend_v3(
        acc, m_i, l_i, q, k_desc, v_desc, head, offs_m, offs_n, S, qk_scale,
        free_end, stop, BLOCK_N, BLOCK_D, True, CAUSAL, INTERPRETED,
    )  # fmt: skip
    out = (acc / l_i[:, None]).to(o_desc.dtype)
    # The store is clipped to S and D by the descriptor.
    o_desc.store([head, row, 0], out.reshape(1, BLOCK_M, BLOCK_D))


# --8<-- [start:v4-step]
@triton.jit
def _softmax_step(
    acc, m_i, l_i, qk, v, offs_m, offs_n, n0, S, qk_scale,
    MASKED: tl.constexpr, CAUSAL: tl.constexpr,
):  # fmt: skip
    """Version 2's online-softmax update for one block of scores."""
    if MASKED:
        key = n0 + offs_n
        keep = (key < S)[None, :]
        if CAUSAL:
            keep = keep & (key[None, :] <= offs_m[:, None])
        qk = tl.where(keep, qk, -float("inf"))
    m_new = tl.maximum(m_i, tl.max(qk, axis=1) * qk_scale)
    alpha = tl.exp2(m_i - m_new)
    p = tl.exp2(qk * qk_scale - m_new[:, None])
    l_i = l_i * alpha + tl.sum(p, axis=1)
    acc = acc * alpha[:, None]
    acc = tl.dot(p.to(v.dtype), v, acc)
    return acc, m_new, l_i


@triton.jit
def _attend_v4(
    acc, m_i, l_i, q, k_desc, v_desc, head, offs_m, offs_n, S, qk_scale,
    start, stop, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
    MASKED: tl.constexpr, CAUSAL: tl.constexpr, INTERPRETED: tl.constexpr,
    WARP_SPECIALIZE: tl.constexpr,
):  # fmt: skip
    """Version 4's steps: the scores of block j + 1 are issued to the tensor
    cores before block j's softmax, so the exponentials (MUFU) can run while
    that product is in flight (FlashAttention-3's intra-warpgroup overlap)."""
    if start < stop:
        k = k_desc.load([head, start, 0]).reshape(BLOCK_N, BLOCK_D)
        if INTERPRETED:  # the CPU interpreter cannot tl.dot bfloat16 tiles
            k = k.to(tl.float32)
        qk = tl.dot(q, tl.trans(k))  # prologue: the first block's scores
        for n0 in tl.range(
            start, stop - BLOCK_N, BLOCK_N, warp_specialize=WARP_SPECIALIZE
        ):
            k = k_desc.load([head, n0 + BLOCK_N, 0]).reshape(BLOCK_N, BLOCK_D)
            v = v_desc.load([head, n0, 0]).reshape(BLOCK_N, BLOCK_D)
            if INTERPRETED:
                k = k.to(tl.float32)
                v = v.to(tl.float32)
            # Issued first, consumed only on the next trip: two QK^T
            # products are live across this block's softmax.
            qk_next = tl.dot(q, tl.trans(k))
            acc, m_i, l_i = _softmax_step(
                acc, m_i, l_i, qk, v, offs_m, offs_n, n0, S, qk_scale,
                MASKED, CAUSAL,
            )  # fmt: skip
            qk = qk_next
        last = start + (stop - start - 1) // BLOCK_N * BLOCK_N  # the last block
        v = v_desc.load([head, last, 0]).reshape(BLOCK_N, BLOCK_D)
        if INTERPRETED:
            v = v.to(tl.float32)
        acc, m_i, l_i = _softmax_step(
            acc, m_i, l_i, qk, v, offs_m, offs_n, last, S, qk_scale, MASKED, CAUSAL
        )  # fmt: skip
    return acc, m_i, l_i
    # --8<-- [end:v4-step]


@triton.jit
def attention_v4_kernel(
    q_desc, k_desc, v_desc, o_desc, S, qk_scale,
    BLOCK_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    CAUSAL: tl.constexpr, WARP_SPECIALIZE: tl.constexpr, INTERPRETED: tl.constexpr,
):  # fmt: skip
    # Version 3's program, with version 4's steps.
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(S, BLOCK_M)
    tile_m = pid % tiles_m
    if CAUSAL:
        tile_m = tiles_m - 1 - tile_m
    head = pid // tiles_m
    row = tile_m * BLOCK_M
    offs_m = row + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    q = q_desc.load([head, row, 0]).reshape(BLOCK_M, BLOCK_D)
    if INTERPRETED:
        q = q.to(tl.float32)
    m_i = tl.full((BLOCK_M,), -float("inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)
    if CAUSAL:
        free_end = row
        stop = tl.minimum(row + BLOCK_M, S)
    else:
        free_end = S // BLOCK_N * BLOCK_N
        stop = S
    acc, m_i, l_i = _attend_v4(
        acc, m_i, l_i, q, k_desc, v_desc, head, offs_m, offs_n, S, qk_scale,
        0, free_end, BLOCK_N, BLOCK_D, False, CAUSAL, INTERPRETED, WARP_SPECIALIZE,
    )  # fmt: skip
    acc, m_i, l_i = _attend_v4(
        acc, m_i, l_i, q, k_desc, v_desc, head, offs_m, offs_n, S, qk_scale,
        free_end, stop, BLOCK_N, BLOCK_D, True, CAUSAL, INTERPRETED, WARP_SPECIALIZE,
    )  # fmt: skip
    out = (acc / l_i[:, None]).to(o_desc.dtype)
    o_desc.store([head, row, 0], out.reshape(1, BLOCK_M, BLOCK_D))


def validate(q: object, k: object, v: object, causal: object) -> None:
    """Raise TypeError or ValueError naming the bad argument; launch nothing."""
    for name, value in (("q", q), ("k", k), ("v", v)):
        if not isinstance(value, torch.Tensor):
            kind = type(value).__name__
            raise TypeError(f"{name} must be a torch.Tensor, got {kind}")
        if value.dtype not in SUPPORTED_DTYPES:
            allowed = "float32, float16 or bfloat16"
            raise TypeError(f"{name} has dtype {value.dtype}; use {allowed}")
    if q.dim() != 4:
        shape = tuple(q.shape)
        raise ValueError(f"q must be 4-D (B, H, S, D), got shape {shape}")
    for name, value in (("k", k), ("v", v)):
        if value.dtype != q.dtype:
            dtypes = f"{value.dtype} but q has {q.dtype}"
            raise TypeError(f"{name} has dtype {dtypes}")
        if value.shape != q.shape:
            raise ValueError(
                f"{name} has shape {tuple(value.shape)} but q has "
                f"{tuple(q.shape)}; this kernel needs them equal"
            )
        if value.device != q.device:
            devices = f"{value.device} but q is on {q.device}"
            raise ValueError(f"{name} is on {devices}")
    if not MIN_HEAD_DIM <= q.shape[-1] <= MAX_HEAD_DIM:
        raise ValueError(
            f"q has head dimension D={q.shape[-1]}; supported: "
            f"{MIN_HEAD_DIM} to {MAX_HEAD_DIM}"
        )
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be a bool, got {type(causal).__name__}")


def attention_with_config(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    causal: bool,
    config: AttentionConfig,
    *,
    version: int = LATEST,
) -> torch.Tensor:
    """Attention with the given tiles (tests use small tiles on small S),
    by version 4, 3 (default; version 2 where ``tma_inputs_ok`` fails), 2
    or 1."""
    validate(q, k, v, causal)
    if config.BLOCK_M % config.BLOCK_N:
        raise ValueError("config.BLOCK_M must be a multiple of config.BLOCK_N")
    B, H, S, D = q.shape
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    out = torch.empty_like(q)
    if out.numel() == 0:
        return out
    if version == 4 and tma_inputs_ok(q, k, v, out):
        return attention_v4(q, k, v, causal, config)
    if version >= 3 and tma_inputs_ok(q, k, v, out):
        return _attention_v3(q, k, v, out, causal, config)
    version = min(version, 2)
    (launch,) = launch_config(q.dtype, B, H, S, D, causal, config, version=version)
    kernel = attention_v1_kernel if version == 1 else attention_v2_kernel
    grid = (triton.cdiv(S, config.BLOCK_M) * B * H,)
    kernel[grid](
        q, k, v, out, S, LOG2_E / math.sqrt(D),
        **launch.constexprs,
        INTERPRETED=q.device.type == "cpu",  # CPU tensors run interpreted
        **launch.options(),
    )  # fmt: skip
    return out


def attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False
) -> torch.Tensor:
    """Scaled dot-product attention over (B, H, S, D) tensors: version 3
    where TMA can take the inputs, else version 2, with the tiles of the
    device's architecture."""
    validate(q, k, v, causal)
    config = config_v3_for(q.dtype, q.shape[-1], device_target(q))
    return attention_with_config(q, k, v, causal, config)


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
    """``attention(q, k, v, causal=True)``: query i sees keys 0..i (the
    qualification task's function, kernels/attention/task.py)."""
    return attention(q, k, v, causal=True)


def attention_v2(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False
) -> torch.Tensor:
    """Version 2 alone, whatever the inputs."""
    validate(q, k, v, causal)
    config = config_v2_for(q.dtype, q.shape[-1])
    return attention_with_config(q, k, v, causal, config, version=2)


def tma_inputs_ok(*tensors: torch.Tensor) -> bool:
    """Whether these contiguous (B, H, S, D) tensors suit version 3:
    ``tma_shape_ok`` for their dtype and D, and 16-byte aligned starts."""
    q = tensors[0]
    return tma_shape_ok(q.dtype, q.shape[-1]) and all(
        t.is_contiguous() and t.data_ptr() % 16 == 0 for t in tensors
    )


def attention_v3(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    causal: bool = False,
    config: AttentionConfig | None = None,
) -> torch.Tensor:
    """Version 3: q, k, v and the output through TMA tensor descriptors.
    ``config`` overrides the tiles (tests use small ones)."""
    validate(q, k, v, causal)
    config = config or config_v3_for(q.dtype, q.shape[-1], device_target(q))
    if config.BLOCK_M % config.BLOCK_N:
        raise ValueError("config.BLOCK_M must be a multiple of config.BLOCK_N")
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    out = torch.empty_like(q)
    if out.numel() == 0:
        return out
    if not tma_inputs_ok(q, k, v, out):
        raise ValueError(
            "q, k and v must be 16-bit with rows of D spanning a multiple of "
            "16 bytes and 16-byte aligned"
        )
    return _attention_v3(q, k, v, out, causal, config)


def _attention_v3(q, k, v, out, causal, config):
    """Launch version 3 on contiguous, aligned inputs."""
    from triton.tools.tensor_descriptor import TensorDescriptor

    B, H, S, D = q.shape
    (launch,) = launch_config(q.dtype, B, H, S, D, causal, config, version=3)
    bm, bn, bd = (launch.constexprs[k] for k in ("BLOCK_M", "BLOCK_N", "BLOCK_D"))

    # Each tensor seen as (B * H, S, D), so a tile stops at its head's end;
    # rows past S and columns past D (D = 80 in a 128-wide tile) read as
    # zeros and are never written.
    def describe(t, rows):
        return TensorDescriptor(t, [B * H, S, D], [S * D, D, 1], [1, rows, bd])

    grid = (triton.cdiv(S, bm) * B * H,)
    attention_v3_kernel[grid](
        describe(q, bm), describe(k, bn), describe(v, bn), describe(out, bm),
        S, LOG2_E / math.sqrt(D),
        **launch.constexprs,
        INTERPRETED=q.device.type == "cpu",
        **launch.options(),
    )  # fmt: skip
    return out


def attention_v4(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    causal: bool = False,
    config: AttentionConfig | None = None,
) -> torch.Tensor:
    """Version 4: version 3 with block j + 1's scores issued before block
    j's softmax. Same inputs as ``attention_v3``; not yet the launcher's
    choice (no device has timed it)."""
    from triton.tools.tensor_descriptor import TensorDescriptor

    validate(q, k, v, causal)
    config = config or config_v3_for(q.dtype, q.shape[-1], device_target(q))
    if config.BLOCK_M % config.BLOCK_N:
        raise ValueError("config.BLOCK_M must be a multiple of config.BLOCK_N")
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    out = torch.empty_like(q)
    if out.numel() == 0:
        return out
    if not tma_inputs_ok(q, k, v, out):
        raise ValueError(
            "q, k and v must be 16-bit with rows of D spanning a multiple of "
            "16 bytes and 16-byte aligned"
        )
    B, H, S, D = q.shape
    (launch,) = launch_config(q.dtype, B, H, S, D, causal, config, version=4)
    bm, bn, bd = (launch.constexprs[k] for k in ("BLOCK_M", "BLOCK_N", "BLOCK_D"))

    def describe(t, rows):
        return TensorDescriptor(t, [B * H, S, D], [S * D, D, 1], [1, rows, bd])

    attention_v4_kernel[(triton.cdiv(S, bm) * B * H,)](
        describe(q, bm), describe(k, bn), describe(v, bn), describe(out, bm),
        S, LOG2_E / math.sqrt(D),
        **launch.constexprs,
        INTERPRETED=q.device.type == "cpu",
        **launch.options(),
    )  # fmt: skip
    return out


def attention_v1(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False
) -> torch.Tensor:
    """Version 1: 64-wide key blocks, the scale as its own multiply."""
    validate(q, k, v, causal)
    config = config_for(q.dtype, q.shape[-1])
    return attention_with_config(q, k, v, causal, config, version=1)


def bytes_moved(B: int, H: int, S: int, D: int, itemsize: int) -> int:
    """Least traffic: read q, k and v once, write the output once."""
    return 4 * B * H * S * D * itemsize


def flops(B: int, H: int, S: int, D: int, causal: bool) -> int:
    """Two products (q k^T, then p v) of 2 * D flops per visible score."""
    visible_scores = S * (S + 1) // 2 if causal else S * S
    return 4 * B * H * D * visible_scores
