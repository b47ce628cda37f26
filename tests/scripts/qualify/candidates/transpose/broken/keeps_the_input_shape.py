"""A transpose whose result has the input's shape: the transposed values,
viewed as (rows, cols).

What is wrong: the bytes are the transpose's, but a (rows, cols) result is
not x.T unless the matrix is square.
Expected check: output-type
"""

import torch
import triton
import triton.language as tl


@triton.jit
def same_shape_kernel(x_ptr, out_ptr, rows, cols, s0, s1, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < rows * cols
    i = offs // rows  # output row: an input column
    j = offs % rows  # output column: an input row
    x = tl.load(x_ptr + j * s0 + i * s1, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


def transpose(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"x has dtype {x.dtype}; use float32, float16 or bfloat16")
    if x.dim() != 2:
        raise ValueError(f"x must be 2-D, got shape {tuple(x.shape)}")
    rows, cols = x.shape
    out = torch.empty((cols, rows), dtype=x.dtype, device=x.device)
    n = rows * cols
    if n:
        grid = (triton.cdiv(n, 1024),)
        same_shape_kernel[grid](
            x, out, rows, cols, x.stride(0), x.stride(1), BLOCK=1024
        )
    return out.view(rows, cols)  # the input's shape, not its transpose
