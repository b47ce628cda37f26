"""Wrong: the grid is 16 programs whatever n is, which covers 2,048
elements: every case up to that passes, the largest does not.
Mistake: tail_unwritten."""

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)  # which block of BLOCK elements this program owns
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n  # the last block runs past the end: those lanes do nothing
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def vector_add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    n = out.numel()
    BLOCK = 128
    grid = (16,)
    add_kernel[grid](x, y, out, n, BLOCK=BLOCK)
