"""Imports Triton inside ``try``, so the module imports without it.

Why it must pass: ``try: import triton ... except ImportError: triton =
None`` is how a library keeps a Triton path optional; where Triton is
installed the kernel is defined and launched as usual, every block masked.
A check that looks for the imports only at the top level of the module
rejects a correct kernel.
Expected: qualified
"""

import torch

try:
    import triton
    import triton.language as tl
except ImportError:
    triton = None

if triton is not None:

    @triton.jit
    def add_relu_kernel(x_ptr, residual_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
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
    if triton is None:
        raise RuntimeError("residual_add_relu needs Triton")
    x, residual = x.contiguous(), residual.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    if n:
        add_relu_kernel[(triton.cdiv(n, 1024),)](x, residual, out, n, BLOCK=1024)
    return out
