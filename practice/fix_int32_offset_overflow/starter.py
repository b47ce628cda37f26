"""Find and fix (`fix-int32-offset-overflow`): right for a window near the
start of x, wrong (or a crash) for one past 2**31 bytes. Fix it, then run
    .venv/bin/python -m scripts.practice check fix-int32-offset-overflow \
        work/fix_int32_offset_overflow.py
"""

import torch
import triton
import triton.language as tl


@triton.jit
def window_kernel(x_ptr, out_ptr, start, BLOCK: tl.constexpr):
    local = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs = start + local
    tl.store(out_ptr + local, tl.load(x_ptr + offs))


def copy_window(x: torch.Tensor, out: torch.Tensor, start: int) -> None:
    window_kernel[(out.numel() // 1024,)](x, out, start, BLOCK=1024)
