"""Reads and writes through block pointers, one launch per chunk of rows.

Why it must pass: it views the flat problem as rows of 1024 elements,
addresses each tile with tl.make_block_ptr (boundary checks pad and clip
the last tile), and launches once per chunk of at most 4096 rows, so large
inputs take several launches, each with a grid well inside CUDA's limits.
Block pointers take 32-bit offsets (Triton 3.6 insists), so it refuses an
input of 2**31 elements or more with a ValueError naming x. None of it is
usual, and all of it is correct.
Expected: qualified
"""

import torch
import triton
import triton.language as tl

ROW = 1024
CHUNK_ROWS = 4096


@triton.jit
def tile_kernel(x_ptr, residual_ptr, out_ptr, n_elements, row0, BLOCK: tl.constexpr):
    row = row0 + tl.program_id(0)
    start = row * BLOCK  # int32: the launcher keeps n below 2**31
    shape = (n_elements,)
    x_block = tl.make_block_ptr(x_ptr, shape, (1,), (start,), (BLOCK,), (0,))
    r_block = tl.make_block_ptr(residual_ptr, shape, (1,), (start,), (BLOCK,), (0,))
    o_block = tl.make_block_ptr(out_ptr, shape, (1,), (start,), (BLOCK,), (0,))
    x = tl.load(x_block, boundary_check=(0,), padding_option="zero")
    residual = tl.load(r_block, boundary_check=(0,), padding_option="zero")
    total = x.to(tl.float32) + residual.to(tl.float32)
    out = tl.where(total < 0, 0.0, total)
    tl.store(o_block, out.to(out_ptr.dtype.element_ty), boundary_check=(0,))


def _validate(x, residual):
    for name, value in (("x", x), ("residual", residual)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(
                f"{name} must be a torch.Tensor, got {type(value).__name__}"
            )
        if value.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            raise TypeError(f"{name} has unsupported dtype {value.dtype}")
    if x.dtype != residual.dtype:
        raise TypeError(f"residual is {residual.dtype} but x is {x.dtype}")
    if x.shape != residual.shape:
        raise ValueError(
            f"residual has shape {tuple(residual.shape)}, x has {tuple(x.shape)}"
        )
    if x.device != residual.device:
        raise ValueError(f"residual is on {residual.device}, x on {x.device}")
    if x.numel() >= 2**31:
        raise ValueError(f"x has {x.numel()} elements; at most 2**31 - 1 fit")


def residual_add_relu(x, residual):
    _validate(x, residual)
    x, residual = x.contiguous(), residual.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    rows = triton.cdiv(n, ROW)
    for row0 in range(0, rows, CHUNK_ROWS):
        count = min(CHUNK_ROWS, rows - row0)
        tile_kernel[(count,)](x, residual, out, n, row0, BLOCK=ROW)
    return out
