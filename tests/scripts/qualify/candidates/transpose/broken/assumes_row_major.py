"""A transpose that assumes its input is row-major: strides (cols, 1)
whatever the tensor says.

What is wrong: a row-major input is transposed right; an input that is
itself a transposed view is read in the wrong order.
Expected check: values
Expected case: transposed
"""

import torch
import triton
import triton.language as tl


@triton.jit
def row_major_kernel(x_ptr, out_ptr, rows, cols, s0, s1, BLOCK: tl.constexpr):
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
        row_major_kernel[grid](x, out, rows, cols, cols, 1, BLOCK=1024)
    return out
