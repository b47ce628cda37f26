"""Matrix multiplication ``C = A @ B`` as one tiled Triton kernel.

Versions
    ``matmul_v1_kernel``: each program computes one ``BLOCK_M x BLOCK_N`` tile of
    C, stepping through K by ``BLOCK_K`` with a float32 accumulator. The
    program order is a launch parameter: ``GROUP_M = 1`` walks the output tiles
    row by row (the plain order); ``GROUP_M > 1`` walks bands of ``GROUP_M``
    tile rows column by column, so programs that run at the same time share
    rows of A and columns of B in L2 (the grouped order). ``matmul_v1`` runs
    it alone.

    ``matmul_v2_kernel`` (``matmul``'s choice for 16-bit, row-major,
    16-byte aligned operands whose rows span multiples of 16 bytes): a
    persistent tile loop, one program per SM walking the output tiles in
    the same grouped order, with TMA tensor descriptors built on the host
    (``TensorDescriptor``). The hardware copies each A and B tile into
    shared memory (bulk tensor copies, ``UTMALDG`` in SASS), padding the
    edges with zeros, and stores C through one too (``UTMASTG``), clipped
    to the matrix: no masks and no address arithmetic per element. Other
    operands (float32, odd strides, misaligned views) take version 1, so
    ``launch_config`` describes contiguous operands.

    ``matmul_v3_kernel`` (``matmul_v3``; not yet the launcher's choice, as
    no device has timed it): version 2's loop with the epilogue cut in two.
    C leaves as two 128 x 128 TMA stores instead of one 128 x 256, so the
    staging buffer for C takes half the shared memory (32 KiB instead of
    64), and the freed space holds a fourth stage of A and B tiles:
    4 * (128 * 64 + 64 * 256) * 2 = 192 KiB plus 32 KiB fits Hopper's
    227 KiB per block (Triton's tutorial 09 calls this EPILOGUE_SUBTILE).
    The large-output config only; smaller outputs keep version 2's tiles.

    ``matmul_fp8`` runs the same kernel on float8 e4m3 operands (``SCALED``):
    the tensor cores multiply 8-bit inputs and accumulate in float32 (QGMMA
    on sm_90a), the epilogue multiplies by the product of the two per-tensor
    scales and rounds once to bfloat16.

Contract
    ``a`` (M, K) and ``b`` (K, N), both float32, float16 or bfloat16 with the
    same dtype, on one device, any strides, any M, N, K >= 0 (masks cover the
    ragged edges); each operand and the output must span fewer than 2**31
    elements (offsets are int32). Products are summed in float32 and the
    result is rounded once to the input dtype. float32 inputs get IEEE
    float32 products (``input_precision="ieee"``, like torch's default), not
    TF32. The result is a new contiguous (M, N) tensor; inputs are never
    written. NaN and Inf follow IEEE arithmetic term by term: a NaN in row i
    of A makes row i of C NaN, an Inf times a zero gives NaN. Anything else
    raises ``TypeError`` or ``ValueError`` naming the argument, before any
    launch.

Configs (fixed: no autotuning, so compiled artifacts are reproducible)
    bfloat16 and float16: 128 x 256 x 64 tiles, GROUP_M 8, 8 warps (two
    warpgroups of 64 rows each), 3 pipeline stages. A 64-wide K step is four
    16-deep warpgroup MMA steps (wgmma) on sm_90a; three stages of A and B
    tiles take 3 * (128 + 256) * 64 * 2 bytes = 144 KiB of shared memory.
    float32: 64 x 64 x 32 tiles, GROUP_M 8, 4 warps, 3 stages; IEEE float32
    dot products run on the FMA units, not the tensor cores.
    Version 2, by output size (``v2_config``): 128 x 256 x 64 tiles, 8
    warps, 3 stages from 4096 x 4096 up; 128 x 128 x 64 tiles, 8 warps, 4
    stages below, so more tiles keep more SMs busy.
    Consumer Blackwell (sm_120, RTX 50-class; ``device_target``): a block
    may use 99 KiB of shared memory there, so versions 2 and 3 take
    128 x 128 x 64 tiles, 8 warps, 3 stages at every size (version 3 on
    float8 keeps 128 x 256 x 64: one-byte elements halve each stage).
    The interpreter uses the same configs: its cost is mostly per operation
    (a few milliseconds per loop step), not per element, so big tiles are
    cheap there too.

Napkin math
    ``flops``: one multiply and one add per term, 2 * M * N * K.
    ``bytes_moved``: the least traffic, A and B read once and C written once,
    (M * K + K * N + M * N) * itemsize. Tiles read more than that from L2:
    every program loads a BLOCK_M x K strip of A and a K x BLOCK_N strip of B,
    so the grid requests M * N * K * (1 / BLOCK_N + 1 / BLOCK_M) elements of
    operands; bigger tiles mean fewer requests per flop.
"""

from dataclasses import dataclass

import torch
import triton
import triton.language as tl

from kernels.descriptor import Launch
from kernels.devices import H200

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


@dataclass(frozen=True)
class MatmulConfig:
    """Tile sizes, program order and launch options for one dtype."""

    BLOCK_M: int
    BLOCK_N: int
    BLOCK_K: int
    GROUP_M: int
    num_warps: int
    num_stages: int


_HALF = MatmulConfig(128, 256, 64, GROUP_M=8, num_warps=8, num_stages=3)
_FLOAT = MatmulConfig(64, 64, 32, GROUP_M=8, num_warps=4, num_stages=3)
CONFIGS = {torch.bfloat16: _HALF, torch.float16: _HALF, torch.float32: _FLOAT}
# 16-bit inputs ignore this; float32 gets exact float32 products, not TF32.
DOT_PRECISION = {
    torch.bfloat16: "tf32",
    torch.float16: "tf32",
    torch.float32: "ieee",
}


#: Version 2's config table, by shape (no autotuning: an artifact shows the
#: code that runs). Big outputs take 128 x 256 tiles; smaller ones 128 x 128
#: tiles, so more tiles keep more SMs busy, with one more stage.
_V2_LARGE = MatmulConfig(128, 256, 64, GROUP_M=8, num_warps=8, num_stages=3)
_V2_SMALL = MatmulConfig(128, 128, 64, GROUP_M=8, num_warps=8, num_stages=4)
V2_LARGE_FROM = 4096 * 4096  # M * N at which the big tiles start
#: Programs of the persistent launch off a GPU: one per SM of an H200; a
#: GPU reports its own count.
DEFAULT_SMS = H200.sm_count
#: Version 3: the large tiles with a fourth stage, affordable because the
#: epilogue stores C in two halves (EPILOGUE_SPLIT).
_V3_LARGE = MatmulConfig(128, 256, 64, GROUP_M=8, num_warps=8, num_stages=4)
EPILOGUE_SPLIT = 2
LATEST = 2
#: Consumer Blackwell (sm_120, RTX 50-class) gives a block 99 KiB of shared
#: memory, not Hopper's 227 (kernels/devices.py:TARGETS): Hopper's tiles
#: compile there but their launches fail. Versions 2 and 3 take 128 x 128 x
#: 64 tiles with three stages on it, at every output size; float8 operands
#: (one byte each) keep version 3's wide tiles with three stages.
CONSUMER_TARGETS = ("sm_120a",)
_V2_CONSUMER = MatmulConfig(128, 128, 64, GROUP_M=8, num_warps=8, num_stages=3)
_V3_CONSUMER_FP8 = MatmulConfig(128, 256, 64, GROUP_M=8, num_warps=8, num_stages=3)


def consumer(target: str | None) -> bool:
    """Whether ``target`` ("sm_120a"; None: Hopper or datacenter Blackwell)
    is a consumer part with a block's shared memory under 100 KiB."""
    return target in CONSUMER_TARGETS


def device_target(t: torch.Tensor) -> str | None:
    """The compile target of the GPU holding ``t`` ("sm_120a"), None off a
    GPU: the launchers pick tiles that fit its shared memory."""
    if not t.is_cuda:
        return None
    major, minor = torch.cuda.get_device_capability(t.device)
    return f"sm_{major}{minor}a"


def v2_config(M: int, N: int, target: str | None = None) -> MatmulConfig:
    """Version 2's tiles for an (M, N) output on ``target``."""
    if consumer(target):
        return _V2_CONSUMER
    return _V2_LARGE if M * N >= V2_LARGE_FROM else _V2_SMALL


#: The 8-bit input format of ``matmul_fp8`` (4 exponent bits, 3 mantissa).
FP8 = torch.float8_e4m3fn


def fp8_shape_ok(dtype: torch.dtype, N: int, K: int) -> bool:
    """Whether float8 operands suit a TMA descriptor: rows of A (K) and of B
    (N) spanning multiples of 16 bytes, one byte per element."""
    return dtype == FP8 and min(N, K) > 0 and K % 16 == 0 and N % 16 == 0


def v3_config(
    M: int, N: int, target: str | None = None, dtype: torch.dtype | None = None
) -> MatmulConfig:
    """Version 3's tiles: the fourth stage where version 2 takes the big
    tiles; version 2's small tiles (already four stages) below. On a
    consumer target, version 2's consumer tiles (wide ones for float8)."""
    if consumer(target):
        return _V3_CONSUMER_FP8 if dtype == FP8 else _V2_CONSUMER
    return _V3_LARGE if M * N >= V2_LARGE_FROM else _V2_SMALL


def tma_shape_ok(dtype: torch.dtype, M: int, N: int, K: int) -> bool:
    """Whether contiguous operands of this shape suit version 2: a 16-bit
    dtype, and rows of A (K), B and C (N) that span multiples of 16 bytes,
    as a TMA descriptor requires of every stride but the last."""
    itemsize = 2
    return (
        dtype in (torch.bfloat16, torch.float16)
        and min(M, N, K) > 0
        and (K * itemsize) % 16 == 0
        and (N * itemsize) % 16 == 0
    )


def launch_config(
    dtype: torch.dtype,
    M: int,
    N: int,
    K: int,
    config: MatmulConfig | None = None,
    *,
    version: int = LATEST,
    target: str | None = None,
) -> list[Launch]:
    """One launch, none for an empty output. Version 2 (for contiguous
    operands): ``matmul_v2_kernel`` with the table's tiles (or ``config``)
    where ``tma_shape_ok``, else version 1. Version 1: ``matmul_v1_kernel``
    with the dtype's config (or ``config``). ``target`` ("sm_120a") picks
    tiles that fit that architecture's shared memory; None: Hopper's. The
    launcher adds ``INTERPRETED``, which follows the device."""
    if M * N == 0:
        return []
    if version not in (1, 2, 3):
        raise ValueError(f"version must be 1, 2 or 3, got {version}")
    if version == 3 and (tma_shape_ok(dtype, M, N, K) or fp8_shape_ok(dtype, N, K)):
        config = config or v3_config(M, N, target, dtype)
        tiles = {
            "BLOCK_M": config.BLOCK_M,
            "BLOCK_N": config.BLOCK_N,
            "BLOCK_K": config.BLOCK_K,
            "GROUP_M": config.GROUP_M,
            "EPILOGUE_SPLIT": EPILOGUE_SPLIT,
            "SCALED": dtype == FP8,
        }
        options = {"num_warps": config.num_warps, "num_stages": config.num_stages}
        return [Launch("matmul_v3_kernel", tiles, **options)]
    if version >= 2 and tma_shape_ok(dtype, M, N, K):
        config = config or v2_config(M, N, target)
        tiles = {
            "BLOCK_M": config.BLOCK_M,
            "BLOCK_N": config.BLOCK_N,
            "BLOCK_K": config.BLOCK_K,
            "GROUP_M": config.GROUP_M,
        }
        options = {"num_warps": config.num_warps, "num_stages": config.num_stages}
        return [Launch("matmul_v2_kernel", tiles, **options)]
    config = config or CONFIGS[dtype]
    tiles = {
        "BLOCK_M": config.BLOCK_M,
        "BLOCK_N": config.BLOCK_N,
        "BLOCK_K": config.BLOCK_K,
        "GROUP_M": config.GROUP_M,
        "DOT_PRECISION": DOT_PRECISION[dtype],
    }
    options = {"num_warps": config.num_warps, "num_stages": config.num_stages}
    return [Launch("matmul_v1_kernel", tiles, **options)]


def matmul_ref(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The answer every version must match: eager PyTorch."""
    return a @ b


@triton.jit
def matmul_v1_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr, DOT_PRECISION: tl.constexpr,
    INTERPRETED: tl.constexpr,
):  # fmt: skip
    # --8<-- [start:tiles]
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    # A band is GROUP_M rows of tiles. Consecutive programs walk down a band
    # before moving right, so the tiles in flight share A rows and B columns.
    programs_per_band = GROUP_M * tiles_n
    band = pid // programs_per_band
    first_tile_m = band * GROUP_M
    band_height = min(tiles_m - first_tile_m, GROUP_M)  # last band may be short
    pos_in_band = pid % programs_per_band
    tile_m = first_tile_m + pos_in_band % band_height
    tile_n = pos_in_band // band_height
    offs_m = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    # --8<-- [end:tiles]
    # --8<-- [start:masks]
    # Rows past M and columns past N exist only in the last tile row and
    # column; they load zeros and are never stored.
    row_in = offs_m < M
    col_in = offs_n < N
    # --8<-- [end:masks]
    # --8<-- [start:k-loop]
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        # The last K step may run past K: those terms must load as zeros,
        # or they add whatever memory lies beyond each row of A.
        k_in = offs_k < K - k0
        a = tl.load(a_ptrs, mask=row_in[:, None] & k_in[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=k_in[:, None] & col_in[None, :], other=0.0)
        if INTERPRETED:  # the CPU interpreter cannot tl.dot bfloat16 tiles
            a = a.to(tl.float32)  # exact, so the sum is the same float32 sum
            b = b.to(tl.float32)
        acc = tl.dot(a, b, acc, input_precision=DOT_PRECISION)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    # --8<-- [end:k-loop]
    # --8<-- [start:store]
    c = acc.to(c_ptr.dtype.element_ty)  # one rounding, after the whole sum
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=row_in[:, None] & col_in[None, :])
    # --8<-- [end:store]


def validate(a: object, b: object) -> None:
    """Raise TypeError or ValueError naming the bad argument; launch nothing."""
    for name, value in (("a", a), ("b", b)):
        if not isinstance(value, torch.Tensor):
            kind = type(value).__name__
            raise TypeError(f"{name} must be a torch.Tensor, got {kind}")
        if value.dtype not in SUPPORTED_DTYPES:
            allowed = "float32, float16 or bfloat16"
            raise TypeError(f"{name} has dtype {value.dtype}; use {allowed}")
        if value.dim() != 2:
            shape = tuple(value.shape)
            raise ValueError(f"{name} must be 2-D, got shape {shape}")
    if b.dtype != a.dtype:
        raise TypeError(f"b has dtype {b.dtype} but a has {a.dtype}")
    if b.shape[0] != a.shape[1]:
        raise ValueError(
            f"b has {b.shape[0]} rows but a has {a.shape[1]} columns; "
            "a (M, K) @ b (K, N) needs them equal"
        )
    if b.device != a.device:
        raise ValueError(f"b is on {b.device} but a is on {a.device}")
    for name, value in (("a", a), ("b", b)):
        # The kernel forms element offsets in int32.
        if max_offset(value) >= 2**31:
            raise ValueError(f"{name} spans 2**31 elements or more")
    if a.shape[0] * b.shape[1] >= 2**31:
        raise ValueError("a and b give an output of 2**31 elements or more")


def max_offset(t: torch.Tensor) -> int:
    """The farthest element from t's first one, in elements."""
    extents = zip(t.shape, t.stride(), strict=True)
    return sum((size - 1) * abs(step) for size, step in extents)


# --8<-- [start:launcher]
def matmul_with_config(
    a: torch.Tensor, b: torch.Tensor, config: MatmulConfig
) -> torch.Tensor:
    """``a @ b`` with the given tiles (tests use small ones on small shapes)."""
    validate(a, b)
    (M, K), N = a.shape, b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if c.numel() == 0:
        return c  # nothing to launch; K == 0 still launches and writes zeros
    (launch,) = launch_config(a.dtype, M, N, K, config, version=1)
    grid = (triton.cdiv(M, config.BLOCK_M) * triton.cdiv(N, config.BLOCK_N),)
    matmul_v1_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1),
        c.stride(0), c.stride(1),
        **launch.constexprs,  # tiles, GROUP_M and DOT_PRECISION
        INTERPRETED=a.device.type == "cpu",  # CPU tensors run interpreted
        **launch.options(),
    )  # fmt: skip
    return c


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Return ``a @ b`` for 2-D ``a`` (M, K) and ``b`` (K, N): version 2 where
    TMA can take the operands, else version 1."""
    validate(a, b)
    if tma_operands_ok(a, b):
        return matmul_v2(a, b)
    # One fixed config per dtype: no autotuning, so a compiled artifact
    # shows exactly the code that runs.
    return matmul_with_config(a, b, CONFIGS[a.dtype])
    # --8<-- [end:launcher]


def matmul_v1(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Version 1 alone, whatever the operands."""
    validate(a, b)
    return matmul_with_config(a, b, CONFIGS[a.dtype])


# --8<-- [start:v2-kernel]
@triton.jit
def matmul_v2_kernel(
    a_desc, b_desc, c_desc, M, N, K,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr, INTERPRETED: tl.constexpr,
):  # fmt: skip
    # Persistent: one program per SM walks output tiles pid, pid + programs,
    # ... in the grouped order, so the grid is launched once and no program
    # waits for a wave to drain.
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    programs_per_band = GROUP_M * tiles_n
    for tile in tl.range(
        tl.program_id(axis=0), tiles_m * tiles_n, tl.num_programs(axis=0), flatten=True
    ):
        band = tile // programs_per_band
        first_tile_m = band * GROUP_M
        band_height = min(tiles_m - first_tile_m, GROUP_M)
        pos_in_band = tile % programs_per_band
        row = (first_tile_m + pos_in_band % band_height) * BLOCK_M
        col = (pos_in_band // band_height) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            # TMA copies whole tiles into shared memory; rows, columns and
            # K terms past the edges arrive as zeros: no masks anywhere.
            a = a_desc.load([row, k])
            b = b_desc.load([k, col])
            if INTERPRETED:  # the CPU interpreter cannot tl.dot bf16 tiles
                a = a.to(tl.float32)
                b = b.to(tl.float32)
            acc = tl.dot(a, b, acc)
        # The store is clipped to the matrix by the descriptor, too.
        c_desc.store([row, col], acc.to(c_desc.dtype))
        # --8<-- [end:v2-kernel]


def tma_operands_ok(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether these operands suit version 2: ``tma_shape_ok`` for their
    shape, row-major (unit column strides), and 16-byte aligned starts and
    row strides."""
    (M, K), N = a.shape, b.shape[1]
    if not tma_shape_ok(a.dtype, M, N, K):
        return False
    return all(
        t.stride(1) == 1
        and (t.stride(0) * t.element_size()) % 16 == 0
        and t.data_ptr() % 16 == 0
        for t in (a, b)
    )


# --8<-- [start:v2-launcher]
def matmul_v2(
    a: torch.Tensor,
    b: torch.Tensor,
    config: MatmulConfig | None = None,
    *,
    programs: int | None = None,
) -> torch.Tensor:
    """Version 2: TMA tensor descriptors and a persistent tile loop.
    ``config`` overrides the table's tiles and ``programs`` the number of
    programs, one per SM by default (tests use small ones)."""
    from triton.tools.tensor_descriptor import TensorDescriptor

    validate(a, b)
    if not tma_operands_ok(a, b):
        raise ValueError("a and b must be 16-bit, row-major and 16-byte aligned")
    (M, K), N = a.shape, b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    (launch,) = launch_config(a.dtype, M, N, K, config, target=device_target(a))
    bm, bn, bk = (launch.constexprs[k] for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
    # A descriptor holds the matrix's base, shape and strides, and the tile
    # one copy moves; the hardware does the address arithmetic.
    a_desc = TensorDescriptor.from_tensor(a, [bm, bk])
    b_desc = TensorDescriptor.from_tensor(b, [bk, bn])
    c_desc = TensorDescriptor.from_tensor(c, [bm, bn])
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    if programs is None:
        programs = DEFAULT_SMS
        if a.is_cuda:
            props = torch.cuda.get_device_properties(a.device)
            programs = props.multi_processor_count
    matmul_v2_kernel[(min(tiles, programs),)](
        a_desc, b_desc, c_desc, M, N, K,
        **launch.constexprs,
        INTERPRETED=a.device.type == "cpu",
        **launch.options(),
    )  # fmt: skip
    return c
    # --8<-- [end:v2-launcher]


# --8<-- [start:v3-kernel]
@triton.jit
def matmul_v3_kernel(
    a_desc, b_desc, c_desc, M, N, K, scale,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr, EPILOGUE_SPLIT: tl.constexpr, SCALED: tl.constexpr,
    INTERPRETED: tl.constexpr,
):  # fmt: skip
    # Version 2's persistent grouped loop; only the epilogue differs.
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    programs_per_band = GROUP_M * tiles_n
    for tile in tl.range(
        tl.program_id(axis=0), tiles_m * tiles_n, tl.num_programs(axis=0), flatten=True
    ):
        band = tile // programs_per_band
        first_tile_m = band * GROUP_M
        band_height = min(tiles_m - first_tile_m, GROUP_M)
        pos_in_band = tile % programs_per_band
        row = (first_tile_m + pos_in_band % band_height) * BLOCK_M
        col = (pos_in_band // band_height) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = a_desc.load([row, k])
            b = b_desc.load([k, col])
            if INTERPRETED:  # the CPU interpreter cannot tl.dot bf16 tiles
                a = a.to(tl.float32)
                b = b.to(tl.float32)
            acc = tl.dot(a, b, acc)
        # Epilogue in two halves: each half is staged in shared memory and
        # leaves by its own TMA store (c_desc's tile is BLOCK_N / 2 wide), so
        # the staging buffer is half as big and a fourth stage fits.
        tl.static_assert(EPILOGUE_SPLIT == 2)
        if SCALED:  # float8 inputs: undo the per-tensor scales, in float32
            acc = acc * scale
        halves = tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1))
        left, right = tl.split(halves)
        c_desc.store([row, col], left.to(c_desc.dtype))
        c_desc.store([row, col + BLOCK_N // 2], right.to(c_desc.dtype))
        # --8<-- [end:v3-kernel]


def matmul_v3(
    a: torch.Tensor,
    b: torch.Tensor,
    config: MatmulConfig | None = None,
    *,
    programs: int | None = None,
) -> torch.Tensor:
    """Version 3: version 2 with the epilogue stored in two halves and, for
    large outputs, a fourth pipeline stage. Same arguments as ``matmul_v2``."""
    from triton.tools.tensor_descriptor import TensorDescriptor

    validate(a, b)
    if not tma_operands_ok(a, b):
        raise ValueError("a and b must be 16-bit, row-major and 16-byte aligned")
    (M, K), N = a.shape, b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    (launch,) = launch_config(
        a.dtype, M, N, K, config, version=3, target=device_target(a)
    )
    bm, bn, bk = (launch.constexprs[k] for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
    a_desc = TensorDescriptor.from_tensor(a, [bm, bk])
    b_desc = TensorDescriptor.from_tensor(b, [bk, bn])
    c_desc = TensorDescriptor.from_tensor(c, [bm, bn // EPILOGUE_SPLIT])
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    if programs is None:
        programs = DEFAULT_SMS
        if a.is_cuda:
            programs = torch.cuda.get_device_properties(a.device).multi_processor_count
    matmul_v3_kernel[(min(tiles, programs),)](
        a_desc, b_desc, c_desc, M, N, K, 1.0,
        **launch.constexprs,
        INTERPRETED=a.device.type == "cpu",
        **launch.options(),
    )  # fmt: skip
    return c


def bytes_moved(M: int, N: int, K: int, itemsize: int) -> int:
    """Ideal traffic: read A and B once, write C once."""
    return (M * K + K * N + M * N) * itemsize


def flops(M: int, N: int, K: int) -> int:
    """One multiply and one add for each of the M * N * K terms."""
    return 2 * M * N * K


def matmul_fp8(
    a: torch.Tensor,
    b: torch.Tensor,
    *,
    scale_a: float = 1.0,
    scale_b: float = 1.0,
    config: MatmulConfig | None = None,
    programs: int | None = None,
) -> torch.Tensor:
    """``(a @ b) * scale_a * scale_b`` in bfloat16 for float8 e4m3 ``a``
    (M, K) and ``b`` (K, N): 8-bit products accumulated in float32 (the
    products of two e4m3 values are exact there), one rounding at the end.
    ``scale_a`` and ``scale_b`` are the per-tensor factors that quantizing
    divided out."""
    from triton.tools.tensor_descriptor import TensorDescriptor

    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor) or t.dtype != FP8 or t.dim() != 2:
            raise TypeError(f"{name} must be a 2-D torch.float8_e4m3fn tensor")
    if b.shape[0] != a.shape[1]:
        raise ValueError(f"b has {b.shape[0]} rows but a has {a.shape[1]} columns")
    if a.device != b.device:
        raise ValueError(f"b is on {b.device} but a is on {a.device}")
    (M, K), N = a.shape, b.shape[1]
    if not fp8_shape_ok(FP8, N, K) or M == 0:
        raise ValueError(
            "matmul_fp8 needs M > 0 and K and N multiples of 16 (TMA rows of 16 bytes)"
        )
    a, b = a.contiguous(), b.contiguous()
    c = torch.empty((M, N), dtype=torch.bfloat16, device=a.device)
    (launch,) = launch_config(FP8, M, N, K, config, version=3, target=device_target(a))
    bm, bn, bk = (launch.constexprs[k] for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
    a_desc = TensorDescriptor.from_tensor(a, [bm, bk])
    b_desc = TensorDescriptor.from_tensor(b, [bk, bn])
    c_desc = TensorDescriptor.from_tensor(c, [bm, bn // EPILOGUE_SPLIT])
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    if programs is None:
        programs = DEFAULT_SMS
        if a.is_cuda:
            programs = torch.cuda.get_device_properties(a.device).multi_processor_count
    matmul_v3_kernel[(min(tiles, programs),)](
        a_desc, b_desc, c_desc, M, N, K, float(scale_a) * float(scale_b),
        **launch.constexprs,
        INTERPRETED=a.device.type == "cpu",
        **launch.options(),
    )  # fmt: skip
    return c
