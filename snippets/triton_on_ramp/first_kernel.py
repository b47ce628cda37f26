"""A first Triton kernel, line by line (the Triton on-ramp,
docs/kernels/where-time-goes/triton-on-ramp.md): a masked vector add, a copy
of a 2-D view through its strides, and an error the interpreter reports.
Run with ``TRITON_INTERPRET=1`` on a CPU: the interpreter runs each program
in turn and checks values, not speed.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)  # which program am I: 0, 1, 2, ...
    offs = pid * BLOCK + tl.arange(0, BLOCK)  # the BLOCK elements I own
    mask = offs < n  # lanes past the end of the array do nothing
    x = tl.load(x_ptr + offs, mask=mask)  # a pointer plus offsets: a vector
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


# --8<-- [end:kernel]


# --8<-- [start:launch]
def add(x: torch.Tensor, y: torch.Tensor, BLOCK: int = 128) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, BLOCK),)  # one program per block, rounded up
    add_kernel[grid](x, y, out, n, BLOCK=BLOCK)  # tensors become pointers
    return out


# --8<-- [end:launch]


# --8<-- [start:strides]
@triton.jit
def copy_rows_kernel(x_ptr, out_ptr, N, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)  # a 1-D grid of rows
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    # Element (row, col) of any strided tensor: row * stride(0) + col * stride(1).
    x = tl.load(x_ptr + row * stride_row + cols * stride_col, mask=mask)
    tl.store(out_ptr + row * N + cols, x, mask=mask)


def copy_rows(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, N, dtype=x.dtype)
    BLOCK = triton.next_power_of_2(N)  # a constexpr: one compiled version each
    copy_rows_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


# --8<-- [end:strides]


# --8<-- [start:error]
@triton.jit
def not_a_power_of_two_kernel(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)  # tl.arange's length must be a power of two
    tl.store(out_ptr + offs, offs)


def interpreter_error() -> str:
    """What Triton says when a block is 100 long: the first line of it."""
    try:
        not_a_power_of_two_kernel[(1,)](torch.empty(100), BLOCK=100)
    except Exception as exc:  # the message is the lesson here
        return f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1]}"
    return "no error"


# --8<-- [end:error]


if __name__ == "__main__":
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(1000, generator=g), torch.randn(1000, generator=g)
    print("add matches torch:", torch.equal(add(x, y), x + y))
    base = torch.randn(8, 40, generator=g)
    view = base.t()  # 40 x 8, not contiguous
    print("copy of a transposed view matches:", torch.equal(copy_rows(view), view))
    print("a block of 100:", interpreter_error())
