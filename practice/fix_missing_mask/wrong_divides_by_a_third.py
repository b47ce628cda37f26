"""Wrong fix: the store is masked now, but 3 * x became x / (1 / 3), and the
rounded reciprocal moves some results by an ulp.
Mistake: ulp."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x / (1.0 / 3.0), mask=mask)


def scale_by_three(x: torch.Tensor, out: torch.Tensor) -> None:
    n = out.numel()
    scale_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
