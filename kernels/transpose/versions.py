"""Transpose a 2-D tensor into a new contiguous one: ``transpose(x)``.

Versions
    ``transpose_v1_kernel`` (naive): each program copies part of one row of
    ``x`` into part of one column of the output. The reads are contiguous;
    the writes are ``M`` elements apart, so each thread's store lands in its
    own memory sector.
    ``transpose_v2_kernel`` (tiled): each program loads a ``BLOCK_M`` by
    ``BLOCK_N`` tile with contiguous rows, transposes it on chip
    (``tl.trans``; the compiler stages it through shared memory) and stores
    the output tile with contiguous rows too.
    ``transpose_v3_kernel`` (grouped): version 2 with ``BLOCK_M`` by
    ``GROUPED_BLOCK_N`` (64 x 128) tiles, taken in grouped order: program
    ids walk down a group of ``GROUP_M`` tile rows before moving one tile to
    the right, as grouped matmuls do, so the programs resident together
    write neighbouring stretches of the same output rows instead of one
    narrow column of many rows. Launched by ``transpose_v3``; not yet the
    launcher's choice (no device has timed it).
    ``transpose(x)`` is the tiled version.

Contract
    A 2-D float32, float16 or bfloat16 tensor of any strides (both kernels
    read through the strides, so no copy is made first). The result is a new
    contiguous ``(N, M)`` tensor holding ``x``'s bits exactly, NaN payloads,
    infinities and signed zeros included. ``TypeError`` names the argument for
    a non-tensor or an unsupported dtype; ``ValueError`` for a tensor that is
    not 2-D.

Napkin math
    Every element is read once and written once: ``2 * M * N * itemsize``
    bytes, no arithmetic (0 FLOPs).
"""

import torch
import triton
import triton.language as tl

from kernels.descriptor import Launch

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
BLOCK_M = 64
BLOCK_N = 64
NAIVE_BLOCK_N = 256
NUM_WARPS = 4
#: Version 3: twice version 2's columns per tile, tile rows grouped by 8.
GROUPED_BLOCK_N = 128
GROUP_M = 8
GROUPED_NUM_WARPS = 8  # as many values per thread as version 2 holds


def launch_config(
    dtype: torch.dtype,
    rows: int,
    cols: int,
    *,
    version: str = "v2",
    block_m: int = BLOCK_M,
    block_n: int | None = None,
    group_m: int = GROUP_M,
) -> list[Launch]:
    """One launch, the same tile for every dtype and size (none when x is
    empty). ``transpose`` is v2; v1 takes ``NAIVE_BLOCK_N`` columns of a row;
    v3 takes ``GROUPED_BLOCK_N`` columns and ``GROUP_M`` tile rows a group."""
    if rows * cols == 0:
        return []
    if version not in ("v1", "v2", "v3"):
        raise ValueError(f"version must be 'v1', 'v2' or 'v3', got {version!r}")
    if version == "v1":
        tile = {"BLOCK_N": block_n or NAIVE_BLOCK_N}
        return [Launch("transpose_v1_kernel", tile, num_warps=NUM_WARPS)]
    if version == "v3":
        tile = {
            "BLOCK_M": block_m,
            "BLOCK_N": block_n or GROUPED_BLOCK_N,
            "GROUP_M": group_m,
        }
        return [Launch("transpose_v3_kernel", tile, num_warps=GROUPED_NUM_WARPS)]
    tile = {"BLOCK_M": block_m, "BLOCK_N": block_n or BLOCK_N}
    return [Launch("transpose_v2_kernel", tile, num_warps=NUM_WARPS)]


def transpose_ref(x: torch.Tensor) -> torch.Tensor:
    """Eager PyTorch: a strided view made contiguous by a copy kernel."""
    return x.t().contiguous()


# --8<-- [start:transpose-v1-kernel]
@triton.jit
def transpose_v1_kernel(
    x_ptr,
    out_ptr,
    M,
    N,
    stride_xm,
    stride_xn,
    BLOCK_N: tl.constexpr,
):
    # Reads BLOCK_N elements of row `row` of x; writes them down a column.
    # One grid axis (axis 1 allows only 65535 programs): row, then column block.
    pid = tl.program_id(axis=0).to(tl.int64)
    col_blocks = tl.cdiv(N, BLOCK_N)
    row = pid // col_blocks
    cols = (pid % col_blocks) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    values = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask)
    # out[cols, row]: neighbouring lanes write M elements apart.
    tl.store(out_ptr + cols * M + row, values, mask=mask)
    # --8<-- [end:transpose-v1-kernel]


# --8<-- [start:transpose-v2-kernel]
@triton.jit
def transpose_v2_kernel(
    x_ptr,
    out_ptr,
    M,
    N,
    stride_xm,
    stride_xn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    # Reads one BLOCK_M x BLOCK_N tile of x, writes it as a BLOCK_N x BLOCK_M
    # tile of out; both sides touch whole rows.
    # One grid axis (axis 1 allows only 65535 programs), tiles in row order.
    pid = tl.program_id(axis=0).to(tl.int64)
    tiles_n = tl.cdiv(N, BLOCK_N)
    rows = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * stride_xm + cols[None, :] * stride_xn
    tile = tl.load(x_ptr + offs, mask=mask)
    # Row c of the output tile is column c of the input tile.
    out_offs = cols[:, None] * M + rows[None, :]
    tl.store(out_ptr + out_offs, tl.trans(tile), mask=tl.trans(mask))
    # --8<-- [end:transpose-v2-kernel]


# --8<-- [start:transpose-v3-kernel]
@triton.jit
def transpose_v3_kernel(
    x_ptr,
    out_ptr,
    M,
    N,
    stride_xm,
    stride_xn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    # Version 2's tile, with the tiles taken in grouped order: ids run down
    # GROUP_M tile rows, then one tile right. Programs resident together
    # then cover a block of tiles, so their stores fill neighbouring
    # stretches of the same output rows.
    pid = tl.program_id(axis=0).to(tl.int64)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_m = tl.minimum(tiles_m - first_m, GROUP_M)  # the last group is short
    tile_m = first_m + (pid % per_group) % group_m
    tile_n = (pid % per_group) // group_m
    rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tile = tl.load(
        x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask
    )
    out_offs = cols[:, None] * M + rows[None, :]
    tl.store(out_ptr + out_offs, tl.trans(tile), mask=tl.trans(mask))
    # --8<-- [end:transpose-v3-kernel]


def validate(x: object) -> None:
    """Raise TypeError or ValueError naming the argument; launch nothing."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in SUPPORTED_DTYPES:
        allowed = "float32, float16 or bfloat16"
        raise TypeError(f"x has dtype {x.dtype}; use {allowed}")
    if x.dim() != 2:
        raise ValueError(f"x must be 2-D, got shape {tuple(x.shape)}")


def transpose_v1(x: torch.Tensor, *, block_n: int = NAIVE_BLOCK_N) -> torch.Tensor:
    """Naive: one program per (row, block of columns)."""
    validate(x)
    M, N = x.shape
    out = torch.empty((N, M), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    (launch,) = launch_config(x.dtype, M, N, version="v1", block_n=block_n)
    grid = (M * triton.cdiv(N, block_n),)
    transpose_v1_kernel[grid](
        x,
        out,
        M,
        N,
        x.stride(0),
        x.stride(1),
        **launch.constexprs,
        **launch.options(),
    )
    return out


def transpose_v2(
    x: torch.Tensor, *, block_m: int = BLOCK_M, block_n: int = BLOCK_N
) -> torch.Tensor:
    """Tiled: one program per BLOCK_M x BLOCK_N tile of x."""
    validate(x)
    M, N = x.shape
    out = torch.empty((N, M), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    (launch,) = launch_config(x.dtype, M, N, block_m=block_m, block_n=block_n)
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n),)
    transpose_v2_kernel[grid](
        x,
        out,
        M,
        N,
        x.stride(0),
        x.stride(1),
        **launch.constexprs,
        **launch.options(),
    )
    return out


def transpose_v3(
    x: torch.Tensor,
    *,
    block_m: int = BLOCK_M,
    block_n: int = GROUPED_BLOCK_N,
    group_m: int = GROUP_M,
) -> torch.Tensor:
    """Grouped: version 2 with wider tiles in grouped order (not yet the
    launcher's choice: no device has timed it)."""
    validate(x)
    M, N = x.shape
    out = torch.empty((N, M), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    (launch,) = launch_config(
        x.dtype, M, N, version="v3", block_m=block_m, block_n=block_n, group_m=group_m
    )
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n),)
    transpose_v3_kernel[grid](
        x,
        out,
        M,
        N,
        x.stride(0),
        x.stride(1),
        **launch.constexprs,
        **launch.options(),
    )
    return out


def transpose(x: torch.Tensor) -> torch.Tensor:
    """Return ``x.T`` as a new contiguous tensor (the tiled version)."""
    return transpose_v2(x)


def bytes_moved(rows: int, cols: int, itemsize: int) -> int:
    """Read every element once and write it once."""
    return 2 * rows * cols * itemsize


def flops(rows: int, cols: int) -> int:
    """A transpose moves data and computes nothing."""
    return 0
