"""Softmax without subtracting the row's maximum: exp(x) / sum(exp(x)).

What is wrong: for scores above about 88, exp overflows float32 to inf and
the row becomes inf / inf = NaN. Ordinary random inputs never get there;
the large-values case does.
Expected check: values
Expected case: large-values
"""

import torch
import triton
import triton.language as tl


@triton.jit
def no_max_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row, out_row = x_ptr + row * cols, out_ptr + row * cols
    offs = tl.arange(0, BLOCK)
    total = tl.zeros([BLOCK], tl.float32)
    for start in range(0, cols, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        total += tl.exp(x.to(tl.float32))
    inv = 1.0 / tl.sum(total, axis=0)
    for start in range(0, cols, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        y = tl.exp(x.to(tl.float32)) * inv
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
        no_max_kernel[(rows,)](flat, out, cols, BLOCK=128)
    return out.reshape(x.shape)
