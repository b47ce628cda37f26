"""Returns a view of a buffer padded to a whole number of blocks.

Why it must fail: padding the inputs and the output to whole blocks lets the
kernel run without a mask, and the values are right; but the returned tensor
is a slice of the padded buffer, so its storage holds more than its
elements (memory a caller never sees, freed only with the result). The
contract's result is a tensor of its own.
Expected check: output-compact
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024


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


@triton.jit
def _kernel(x_ptr, r_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.float32)  # no mask: the buffers are padded
    total = x + tl.load(r_ptr + offs).to(tl.float32)
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty))


def _padded(t, size):
    buf = torch.zeros(size, dtype=t.dtype, device=t.device)
    buf[: t.numel()] = t.reshape(-1)
    return buf


def residual_add_relu(x, residual):
    _validate(x, residual)
    n = x.numel()
    size = triton.cdiv(n, BLOCK) * BLOCK
    buf = torch.empty(size, dtype=x.dtype, device=x.device)
    if n:
        xp, rp = _padded(x, size), _padded(residual, size)
        _kernel[(size // BLOCK,)](xp, rp, buf, BLOCK=BLOCK)
    return buf[:n].view(x.shape)
