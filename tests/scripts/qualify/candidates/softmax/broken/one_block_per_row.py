"""Softmax over the first 1024 columns of each row only: every loop runs
once, as if a row always fitted in one block.

What is wrong: a row wider than the block keeps its tail unwritten and its
maximum and sum ignore that tail. Rows up to 1024 columns are right.
Expected check: values
Expected case: wide-row
"""

import torch
import triton
import triton.language as tl


@triton.jit
def first_block_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row, out_row = x_ptr + row * cols, out_ptr + row * cols
    offs = tl.arange(0, BLOCK)
    best = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, BLOCK, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        best = tl.maximum(best, x.to(tl.float32))
    top = tl.max(best, axis=0)
    total = tl.zeros([BLOCK], tl.float32)
    for start in range(0, BLOCK, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        total += tl.exp(x.to(tl.float32) - top)
    inv = 1.0 / tl.sum(total, axis=0)
    for start in range(0, BLOCK, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        y = tl.exp(x.to(tl.float32) - top) * inv
        tl.store(out_row + start + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"x has dtype {x.dtype}; use float32, float16 or bfloat16")
    if x.dim() == 0:
        raise ValueError("x is 0-d: softmax needs a last dimension")
    cols = x.shape[-1]
    rows = x.numel() // cols if cols else 0
    flat = x.reshape(rows, cols).contiguous()
    out = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    if rows and cols:
        first_block_kernel[(rows,)](flat, out, cols, BLOCK=1024)
    return out.reshape(x.shape)
