"""Wrong: indexes x as if it were contiguous.
Mistake: stride."""

import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, N, stride_r, stride_c, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask)
    tl.store(out_ptr + row * N + cols, x, mask=mask)  # out is contiguous


def copy_2d(x: torch.Tensor, out: torch.Tensor) -> None:
    M, N = out.shape
    BLOCK = 32
    grid = (M, triton.cdiv(N, BLOCK))
    copy_kernel[grid](x, out, N, x.stride(0), x.stride(1), BLOCK=BLOCK)
