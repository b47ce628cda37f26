"""Residual add + ReLU: ``out = relu(x + residual)`` in one fused pass.

Versions
    ``residual_add_relu_v1_kernel``: one program per ``BLOCK_SIZE`` contiguous
    elements of the flattened tensors; the sum is formed in float32 and rounded
    once to the output dtype.

Contract
    float32, float16 and bfloat16; any shape (0-d and empty included); both
    inputs on the same device with the same shape and dtype. Non-contiguous
    inputs are copied to contiguous ones first (correct, at the price of one
    extra read and write of that input). The result is a new contiguous tensor;
    the inputs are never written. NaN propagates as in ``torch.relu`` and
    ``-inf`` becomes 0. Anything else raises ``TypeError`` or ``ValueError``
    naming the argument, before any launch.

Napkin math
    Each element of ``x`` and ``residual`` is read once and each output element
    is written once: ``3 * numel * itemsize`` bytes. One floating-point add per
    element; the ReLU is a compare-and-select, not counted as a FLOP.
"""

import torch
import triton
import triton.language as tl

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
BLOCK_SIZE = 1024
NUM_WARPS = 4


def residual_add_relu_ref(x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    """The answer every version must match: eager PyTorch, two kernels."""
    return torch.relu(x + residual)


# --8<-- [start:kernel]
@triton.jit
def residual_add_relu_v1_kernel(
    x_ptr, residual_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    # Per element: two loads and one store of itemsize bytes each.
    pid = tl.program_id(axis=0)
    # int64 offsets: a tensor past 2**31 elements must not wrap around.
    offs = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block may run past the end
    x = tl.load(x_ptr + offs, mask=mask)
    residual = tl.load(residual_ptr + offs, mask=mask)
    # Add in float32, round once on the store, as eager PyTorch does.
    total = x.to(tl.float32) + residual.to(tl.float32)
    # `total < 0` is False for NaN, so NaN passes through as in torch.relu.
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)
    # --8<-- [end:kernel]


# --8<-- [start:validate]
def validate(x: object, residual: object) -> None:
    """Raise TypeError or ValueError naming the bad argument; launch nothing."""
    for name, value in (("x", x), ("residual", residual)):
        if not isinstance(value, torch.Tensor):
            kind = type(value).__name__
            raise TypeError(f"{name} must be a torch.Tensor, got {kind}")
        if value.dtype not in SUPPORTED_DTYPES:
            allowed = "float32, float16 or bfloat16"
            raise TypeError(f"{name} has dtype {value.dtype}; use {allowed}")
    if residual.dtype != x.dtype:
        raise TypeError(
            f"residual has dtype {residual.dtype} but x has {x.dtype}; "
            "cast one of them first"
        )
    if residual.shape != x.shape:
        raise ValueError(
            f"residual has shape {tuple(residual.shape)} but x has "
            f"{tuple(x.shape)}; no broadcasting"
        )
    if residual.device != x.device:
        raise ValueError(
            f"residual is on {residual.device} but x is on {x.device}; "
            "move them to one device"
        )
    # --8<-- [end:validate]


# --8<-- [start:launcher]
def residual_add_relu(x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    """Return a new tensor equal to ``relu(x + residual)``."""
    validate(x, residual)
    # The kernel walks flat memory, so it needs dense row-major inputs.
    x_flat = x.contiguous()
    residual_flat = residual.contiguous()
    out = torch.empty_like(x_flat)  # contiguous, same shape, dtype, device
    n_elements = out.numel()
    if n_elements == 0:
        return out
    grid = (triton.cdiv(n_elements, BLOCK_SIZE),)
    residual_add_relu_v1_kernel[grid](
        x_flat,
        residual_flat,
        out,
        n_elements,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=NUM_WARPS,
    )
    return out
    # --8<-- [end:launcher]


def bytes_moved(numel: int, itemsize: int) -> int:
    """Read x and residual once, write the output once."""
    return 3 * numel * itemsize


def flops(numel: int) -> int:
    """One add per element; the ReLU is a select, not an arithmetic op."""
    return numel
