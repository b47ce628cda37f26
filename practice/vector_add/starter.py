"""Masked vector add: out = x + y (practice exercise `vector-add`).

Fill in the kernel and the grid, then run
    .venv/bin/python -m scripts.practice check vector-add work/vector_add.py
"""

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    # TODO: the offsets this program owns, a mask for the tail, two loads and
    # one store.
    pass


def vector_add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    n = out.numel()
    BLOCK = 128
    grid = (1,)  # TODO: one program per block of BLOCK elements
    add_kernel[grid](x, y, out, n, BLOCK=BLOCK)
