"""relu(x * scale + bias), NaN kept (practice exercise `relu-scale`).

Fill in the kernel, then run
    .venv/bin/python -m scripts.practice check relu-scale work/relu_scale.py
"""

import torch
import triton
import triton.language as tl


@triton.jit
def relu_scale_kernel(x_ptr, out_ptr, n, scale, bias, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # TODO: load x, scale and shift it, clamp at zero keeping NaN, store.
    pass


def relu_scale(x: torch.Tensor, out: torch.Tensor, scale: float, bias: float) -> None:
    n = out.numel()
    relu_scale_kernel[(triton.cdiv(n, 256),)](x, out, n, scale, bias, BLOCK=256)
