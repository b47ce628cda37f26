"""RMS norm of each row (practice exercise `rms-norm`).

Fill in the kernel, then run
    .venv/bin/python -m scripts.practice check rms-norm work/rms_norm.py
"""

import torch
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, out_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    # TODO: load the row and w, take the mean of the squares, normalise, scale.
    pass


def rms_norm(x: torch.Tensor, w: torch.Tensor, out: torch.Tensor, eps: float) -> None:
    M, N = out.shape
    rms_norm_kernel[(M,)](x, w, out, N, eps, BLOCK=triton.next_power_of_2(N))
