"""Picks its block size from the input size with @triton.heuristics.

Why it must pass: small inputs get 128-element blocks, large ones 2048, and
every block is masked, so both paths are correct. A candidate may choose its
own launch configuration; the evaluator checks results, not choices.
Expected: qualified
"""

import torch
import triton
import triton.language as tl


@triton.heuristics(
    {"BLOCK_SIZE": lambda args: 128 if args["n_elements"] < 65536 else 2048}
)
@triton.jit
def sized_kernel(x_ptr, residual_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    residual = tl.load(residual_ptr + offs, mask=mask)
    total = x.to(tl.float32) + residual.to(tl.float32)
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def _validate(x, residual):
    for name, value in (("x", x), ("residual", residual)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor")
        if value.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            raise TypeError(f"{name} has unsupported dtype {value.dtype}")
    if x.dtype != residual.dtype:
        raise TypeError(f"residual is {residual.dtype} but x is {x.dtype}")
    if x.shape != residual.shape:
        raise ValueError(
            f"residual has shape {tuple(residual.shape)}, x has {tuple(x.shape)}"
        )
    if x.device != residual.device:
        raise ValueError(f"residual is on {residual.device}, x on {x.device}")


def residual_add_relu(x, residual):
    _validate(x, residual)
    x, residual = x.contiguous(), residual.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    if n:
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
        sized_kernel[grid](x, residual, out, n)
    return out
