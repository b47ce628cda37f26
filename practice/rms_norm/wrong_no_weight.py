"""Wrong: the weight is loaded but never applied.
Mistake: no_weight."""

import torch
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, out_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask)
    mean_square = tl.sum(x * x, axis=0) / N  # the row's length, not BLOCK
    tl.store(out_ptr + row * N + cols, x / tl.sqrt(mean_square + eps), mask=mask)


def rms_norm(x: torch.Tensor, w: torch.Tensor, out: torch.Tensor, eps: float) -> None:
    M, N = out.shape
    rms_norm_kernel[(M,)](x, w, out, N, eps, BLOCK=triton.next_power_of_2(N))
