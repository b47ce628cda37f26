"""Teaching example (Triton qualification project): a ReLU written as
``where(total > 0, total, 0)``, which turns NaN into 0.

``nan > 0`` is False, so NaN takes the 0 branch, while torch.relu keeps NaN.
Random inputs never contain NaN; only special values compared with an exact
NaN mask catch it. The verdict the page shows is committed in
``results/qualify/broken_nan_to_zero.cpu.json``.
Expected check: nan-mask
"""

import json
from pathlib import Path

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


# --8<-- [start:kernel]
@triton.jit
def add_relu_kernel(
    x_ptr,
    residual_ptr,
    out_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    residual = tl.load(residual_ptr + offs, mask=mask)
    total = x.to(tl.float32) + residual.to(tl.float32)
    out = tl.where(total > 0, total, 0.0)  # NaN > 0 is False: NaN becomes 0
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:kernel]


def validate(x, residual):
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


# --8<-- [start:launcher]
def residual_add_relu(x, residual):
    validate(x, residual)
    x, residual = x.contiguous(), residual.contiguous()
    out = torch.empty_like(x)
    n_elements = out.numel()
    if n_elements:
        grid = (triton.cdiv(n_elements, BLOCK_SIZE),)
        add_relu_kernel[grid](x, residual, out, n_elements, BLOCK_SIZE=BLOCK_SIZE)
    return out


# --8<-- [end:launcher]


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[2]
    verdict_file = root / "results" / "qualify" / "broken_nan_to_zero.cpu.json"
    verdict = json.loads(verdict_file.read_text())
    failure = verdict["first_failure"]
    print(
        f"{verdict['status']}: {failure['check']} on {failure['case']}: "
        f"{failure['detail']}"
    )
