"""Sum of all elements: ``reduce_sum(x)``, a deterministic two-stage reduction.

Versions
    ``reduce_sum_v1_kernel``: each program loads ``BLOCK_SIZE`` elements,
    widens them to float32 and reduces them with a tree (``tl.sum``) to one
    partial sum. Stage one runs it over the input; stage two runs the same
    kernel over the float32 partials, again and again, until one value is
    left. No atomics: every partial lands in its own slot and is combined in a
    fixed order, so repeated calls give bitwise-identical results.

Contract
    float32, float16 and bfloat16; any shape; non-contiguous inputs are copied
    to contiguous ones first. Accumulation is in float32 whatever the input;
    the result is a new 0-d tensor of the input's dtype on its device (as
    ``torch.sum`` returns), and 0 for an empty tensor. NaN anywhere gives NaN;
    +inf and -inf together give NaN; a float16 or bfloat16 sum past the
    dtype's range becomes inf on the final rounding. ``TypeError`` names the
    argument for a non-tensor or an unsupported dtype.

Napkin math
    Every element is read once and one value is written:
    ``(numel + 1) * itemsize`` bytes (the partials, one float32 per
    ``BLOCK_SIZE`` elements, are left out). ``numel - 1`` additions.
"""

import torch
import triton
import triton.language as tl

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
BLOCK_SIZE = 4096
NUM_WARPS = 8


def reduce_sum_ref(x: torch.Tensor) -> torch.Tensor:
    """Eager PyTorch's sum, for comparison (its summation order differs)."""
    return torch.sum(x)


@triton.jit
def reduce_sum_v1_kernel(in_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # Reads BLOCK_SIZE elements, writes one: the partial sum of this block.
    pid = tl.program_id(axis=0)
    offs = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    # Lanes past the end add 0; accumulate in float32 whatever the input.
    values = tl.load(in_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    partial = tl.sum(values, axis=0)  # a tree inside the block, fixed order
    tl.store(out_ptr + pid, partial.to(out_ptr.dtype.element_ty))


def validate(x: object) -> None:
    """Raise TypeError naming the argument; launch nothing."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in SUPPORTED_DTYPES:
        allowed = "float32, float16 or bfloat16"
        raise TypeError(f"x has dtype {x.dtype}; use {allowed}")


def reduce_sum(x: torch.Tensor, *, block_size: int = BLOCK_SIZE) -> torch.Tensor:
    """Return the sum of all elements of ``x`` as a 0-d tensor of its dtype.

    ``block_size`` (a power of two) is for tests that need several stages
    on small inputs."""
    validate(x)
    values = x.contiguous().reshape(-1)
    while True:
        n_blocks = max(1, triton.cdiv(values.numel(), block_size))
        # Partials stay float32; only the final value is rounded to x.dtype.
        out_dtype = torch.float32 if n_blocks > 1 else x.dtype
        out = torch.empty(n_blocks, dtype=out_dtype, device=x.device)
        reduce_sum_v1_kernel[(n_blocks,)](
            values,
            out,
            values.numel(),
            BLOCK_SIZE=block_size,
            num_warps=NUM_WARPS,
        )
        if n_blocks == 1:
            return out.reshape(())
        values = out


def bytes_moved(numel: int, itemsize: int) -> int:
    """Read every element once, write the one result."""
    return (numel + 1) * itemsize


def flops(numel: int) -> int:
    """Combining numel values takes numel - 1 additions."""
    return max(numel - 1, 0)
