"""Wrong: the store is masked, but its offsets are shifted by 64 from the
ones the mask tests, so it lands past the end: told that the mask is there
and the offsets are not what it tests, not "mask the store".
Mistake: store_masked_past_end."""

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
    tl.store(out_ptr + offs + 64, x + y, mask=mask)  # masked, but shifted


def vector_add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    n = out.numel()
    BLOCK = 128
    grid = (triton.cdiv(n, BLOCK),)  # rounded up, so the tail has a program
    add_kernel[grid](x, y, out, n, BLOCK=BLOCK)
