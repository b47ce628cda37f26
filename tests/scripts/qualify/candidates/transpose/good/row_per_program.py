"""A transpose by rows: each program reads one input row, 256 elements at a
time through the input's strides, and writes it as one column of the
output (a store with a stride of the output's row length).

Why it must pass: the loads are along rows and the stores across them,
which a GPU would rather have the other way round, but every element is
read once through its own strides and written once at the right place.
Expected: qualified
"""

import torch
import triton
import triton.language as tl


@triton.jit
def row_to_column_kernel(x_ptr, out_ptr, rows, cols, s0, s1, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64)  # input row i becomes output column i
    offs = tl.arange(0, BLOCK)
    for start in range(0, cols, BLOCK):
        j = start + offs
        mask = j < cols
        x = tl.load(x_ptr + i * s0 + j * s1, mask=mask)
        tl.store(out_ptr + j * rows + i, x, mask=mask)


def transpose(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"x has dtype {x.dtype}; use float32, float16 or bfloat16")
    if x.dim() != 2:
        raise ValueError(f"x must be 2-D, got shape {tuple(x.shape)}")
    rows, cols = x.shape
    out = torch.empty((cols, rows), dtype=x.dtype, device=x.device)
    if rows and cols:
        row_to_column_kernel[(rows,)](
            x, out, rows, cols, x.stride(0), x.stride(1), BLOCK=256
        )
    return out
