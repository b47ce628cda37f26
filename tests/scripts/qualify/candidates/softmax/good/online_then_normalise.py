"""Softmax in two passes over each row: the first keeps a running maximum
and a running sum of exponentials, rescaling the sum whenever the maximum
grows (the online softmax), the second writes exp(x - max) / sum.

Why it must pass: the row is read twice instead of three times, and the
sum is rescaled by exp2(old max - new max) instead of being taken after
the maximum is known; both are exact rearrangements, in float32.
Expected: qualified
"""

import torch
import triton
import triton.language as tl


@triton.jit
def online_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row, out_row = x_ptr + row * cols, out_ptr + row * cols
    offs = tl.arange(0, BLOCK)
    top = tl.full([BLOCK], float("-inf"), tl.float32)
    total = tl.zeros([BLOCK], tl.float32)
    for start in range(0, cols, BLOCK):  # lane-wise running max and sum
        mask = start + offs < cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        x = x.to(tl.float32) * 1.4426950408889634  # log2(e): exp2 units
        new_top = tl.maximum(top, x)
        # a lane that has seen only -inf keeps a zero sum (no inf - inf)
        keep = tl.where(new_top == float("-inf"), 0.0, tl.exp2(top - new_top))
        grow = tl.where(new_top == float("-inf"), 0.0, tl.exp2(x - new_top))
        total = total * keep + grow
        top = new_top
    row_top = tl.max(top, axis=0)
    scale = tl.where(top == float("-inf"), 0.0, tl.exp2(top - row_top))
    inv = 1.0 / tl.sum(total * scale, axis=0)
    for start in range(0, cols, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        y = tl.exp2(x.to(tl.float32) * 1.4426950408889634 - row_top) * inv
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
        online_kernel[(rows,)](flat, out, cols, BLOCK=128)
    return out.reshape(x.shape)
