"""Wrong fix: the program's part is widened, but start + arange wraps first.
Mistake: crash."""

import torch
import triton
import triton.language as tl


@triton.jit
def window_kernel(x_ptr, out_ptr, start, BLOCK: tl.constexpr):
    local = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs = (start + tl.arange(0, BLOCK)) + tl.program_id(0).to(tl.int64) * BLOCK
    tl.store(out_ptr + local, tl.load(x_ptr + offs))


def copy_window(x: torch.Tensor, out: torch.Tensor, start: int) -> None:
    window_kernel[(out.numel() // 1024,)](x, out, start, BLOCK=1024)
