"""Wrong fix: the load is masked, the store is not.
Mistake: store_unmasked."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, 3.0 * x)


def scale_by_three(x: torch.Tensor, out: torch.Tensor) -> None:
    n = out.numel()
    scale_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
