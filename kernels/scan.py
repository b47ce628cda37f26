"""Inclusive prefix sum of a 1-D tensor: ``cumsum(x)``, across many blocks.

Versions
    ``cumsum`` (reduce, then scan) runs three passes over blocks of
    ``BLOCK_SIZE`` elements:

    1. ``scan_block_sums_kernel``: each program writes the float32 total of
       its block.
    2. The block totals form a shorter 1-D scan problem, solved by ``cumsum``
       itself (recursively, so any number of blocks works). Entry ``b - 1`` of
       that scan is the carry into block ``b``: the sum of everything before
       it.
    3. ``scan_v1_kernel``: each program scans its own block
       (``block_inclusive_scan``) and adds its carry.

    ``cumsum_missing_carry`` is deliberately broken: pass 3 without the carry,
    so every block restarts from zero. It is right only for inputs that fit in
    one block; it is kept for teaching, and its test asserts that it is wrong.

Contract
    A 1-D float32, float16 or bfloat16 tensor (non-contiguous ones are copied
    first). Sums accumulate in float32 and are rounded once to the input's
    dtype; the result is a new contiguous tensor of that dtype. As in
    ``torch.cumsum``, a NaN makes that element and every later one NaN, and
    +inf followed later by -inf gives NaN from the -inf on. ``TypeError``
    names the argument for a non-tensor or an unsupported dtype;
    ``ValueError`` for a tensor that is not 1-D.

Napkin math
    An inclusive scan must read every element once and write every element
    once: ``2 * numel * itemsize`` bytes and ``numel - 1`` additions. This
    version reads the input twice (passes 1 and 3), so it moves
    ``3 * numel * itemsize`` bytes plus the block totals; a single-pass scan
    with decoupled look-back gets down to the 2.
"""

import torch
import triton
import triton.language as tl

from kernels.bounds import EPS32, eps
from kernels.descriptor import ArtifactBuild, Descriptor, Goal, Launch, Target
from kernels.inputs import nonzero_inputs

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
BLOCK_SIZE = 1024
NUM_WARPS = 4


def launch_config(
    dtype: torch.dtype, numel: int, *, block_size: int = BLOCK_SIZE
) -> list[Launch]:
    """The distinct launches of ``cumsum``, in first-launch order: pass 1's
    block totals when there is more than one block (pass 2 reuses both
    kernels on the totals), then pass 3. The same tile for every dtype."""
    n_blocks = triton.cdiv(numel, block_size)
    tile = {"BLOCK_SIZE": block_size}
    apply_carries = Launch("scan_v1_kernel", tile, num_warps=NUM_WARPS)
    if n_blocks == 0:
        return []
    if n_blocks == 1:
        return [apply_carries]
    return [Launch("scan_block_sums_kernel", tile, num_warps=NUM_WARPS), apply_carries]


def cumsum_ref(x: torch.Tensor) -> torch.Tensor:
    """Eager PyTorch's inclusive scan, for comparison."""
    return torch.cumsum(x, dim=0)


# --8<-- [start:block-scan]
@triton.jit
def block_inclusive_scan(x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # This program's block: its offsets, mask, and running sums in float32.
    pid = tl.program_id(axis=0)
    offs = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    values = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    # Sums within this block only: the blocks before it are not counted.
    running = tl.cumsum(values, axis=0)
    return offs, mask, running
    # --8<-- [end:block-scan]


# --8<-- [start:carries]
@triton.jit
def scan_block_sums_kernel(
    x_ptr,
    block_sums_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
):
    # Pass 1: one float32 total per block (reads the input once).
    pid = tl.program_id(axis=0)
    offs = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    values = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(block_sums_ptr + pid, tl.sum(values, axis=0))


def scanned_block_sums(x: torch.Tensor, block_size: int) -> torch.Tensor:
    """Passes 1 and 2: entry b is the total of blocks 0..b, so entry b - 1
    is the carry into block b."""
    n_blocks = triton.cdiv(x.numel(), block_size)
    block_sums = torch.empty(n_blocks, dtype=torch.float32, device=x.device)
    pass_1 = launch_config(x.dtype, x.numel(), block_size=block_size)[0]
    scan_block_sums_kernel[(n_blocks,)](
        x, block_sums, x.numel(), **pass_1.constexprs, **pass_1.options()
    )
    # Pass 2: the totals are a shorter scan; one block ends the recursion.
    return cumsum(block_sums, block_size=block_size)
    # --8<-- [end:carries]


# --8<-- [start:apply-carries]
@triton.jit
def scan_v1_kernel(
    x_ptr, scanned_sums_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    # Pass 3: scan this block, then add everything before it.
    offs, mask, running = block_inclusive_scan(x_ptr, n_elements, BLOCK_SIZE)
    pid = tl.program_id(axis=0)
    # Block 0 has nothing before it; block b carries scanned sum b - 1.
    carry = tl.load(scanned_sums_ptr + pid - 1, mask=pid > 0, other=0.0)
    out = (running + carry).to(out_ptr.dtype.element_ty)  # round once
    tl.store(out_ptr + offs, out, mask=mask)


def cumsum(x: torch.Tensor, *, block_size: int = BLOCK_SIZE) -> torch.Tensor:
    """Inclusive prefix sum of the 1-D tensor ``x``, as a new tensor."""
    validate(x)
    values = x.contiguous()
    out = torch.empty_like(values)
    n_blocks = triton.cdiv(values.numel(), block_size)
    if n_blocks == 0:
        return out
    if n_blocks == 1:  # nothing to carry; the placeholder is never read
        sums = torch.zeros(1, dtype=torch.float32, device=x.device)
    else:
        sums = scanned_block_sums(values, block_size)
    pass_3 = launch_config(x.dtype, values.numel(), block_size=block_size)[-1]
    scan_v1_kernel[(n_blocks,)](
        values,
        sums,
        out,
        values.numel(),
        **pass_3.constexprs,
        **pass_3.options(),
    )
    return out
    # --8<-- [end:apply-carries]


def validate(x: object) -> None:
    """Raise TypeError or ValueError naming the argument; launch nothing."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in SUPPORTED_DTYPES:
        allowed = "float32, float16 or bfloat16"
        raise TypeError(f"x has dtype {x.dtype}; use {allowed}")
    if x.dim() != 1:
        raise ValueError(f"x must be 1-D, got shape {tuple(x.shape)}")


@triton.jit
def scan_missing_carry_kernel(
    x_ptr,
    out_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
):
    # Deliberately wrong: no carry, so each block restarts from zero.
    offs, mask, running = block_inclusive_scan(x_ptr, n_elements, BLOCK_SIZE)
    tl.store(out_ptr + offs, running.to(out_ptr.dtype.element_ty), mask=mask)


def cumsum_missing_carry(
    x: torch.Tensor, *, block_size: int = BLOCK_SIZE
) -> torch.Tensor:
    """Broken on purpose (wrong past the first block); kept for teaching."""
    validate(x)
    values = x.contiguous()
    out = torch.empty_like(values)
    n_blocks = triton.cdiv(values.numel(), block_size)
    if n_blocks:
        scan_missing_carry_kernel[(n_blocks,)](
            values,
            out,
            values.numel(),
            BLOCK_SIZE=block_size,
            num_warps=NUM_WARPS,
        )
    return out


def bytes_moved(numel: int, itemsize: int) -> int:
    """Read every element once and write every element once."""
    return 2 * numel * itemsize


def flops(numel: int) -> int:
    """The last prefix alone needs numel - 1 additions."""
    return max(numel - 1, 0)


# --------------------------------------------------------------------------
# What the tools need to know (see kernels/descriptor.py)
# --------------------------------------------------------------------------


def error_bound(inputs, truth, dtype, shape):
    """Two ulps of the output dtype for the final rounding, plus two float32
    ulps of the running sum of magnitudes: the float32 carries add the
    prefix in a different order than the float64 reference."""
    (x,) = inputs
    return 2 * eps(dtype) * truth.abs() + 2 * EPS32 * torch.cumsum(x.abs(), 0)


_SEVERAL_BLOCKS = {"numel": 1 << 20}  # passes 1 and 3 both launch


DESCRIPTOR = Descriptor(
    name="scan",
    title="inclusive scan",
    launcher=cumsum,
    reference=cumsum_ref,
    metric="bandwidth",
    # H200: L2 is 50 MB; HBM-bound sizes keep the input at least 4x L2.
    shapes={
        "tiny": ({"numel": 3001},),
        "quick": ({"numel": 1 << 28},),
        "full": (
            {"numel": 1 << 20},
            {"numel": 1 << 24},
            {"numel": 1 << 28},
            {"numel": (1 << 28) + 7},
        ),
    },
    make_inputs=lambda shape, dtype, device, seed: nonzero_inputs(
        [(shape["numel"],)], dtype, device, seed
    ),
    bytes_moved=lambda shape, itemsize: bytes_moved(shape["numel"], itemsize),
    flops=lambda shape: flops(shape["numel"]),
    launch_config=lambda dtype, shape: launch_config(dtype, shape["numel"]),
    error_bound=error_bound,
    shape_text=lambda shape: f"{shape['numel']}",
    eager_is="torch.cumsum (the library op)",
    # A float32 scan: bfloat16 prefix sums of 2**28 values keep no digits.
    dtype_cuda="float32",
    goals=(
        Goal(
            regime="1-D, HBM-bound sizes",
            must=(Target("R", 0.60), Target("F_bw", 0.55)),
            stretch=(Target("R", 0.85, note="single-pass look-back"),),
        ),
    ),
    artifact_builds=(
        ArtifactBuild(
            build="block-sums-fp32",
            dtype="float32",
            shape=_SEVERAL_BLOCKS,
            signature={
                "x_ptr": "*fp32",
                "block_sums_ptr": "*fp32",
                "n_elements": "i32",
            },
            aligned=("x_ptr", "block_sums_ptr", "n_elements"),
            shows="pass 1: one total per block",
            launch=0,
        ),
        ArtifactBuild(
            build="apply-carries-fp32",
            dtype="float32",
            shape=_SEVERAL_BLOCKS,
            signature={
                "x_ptr": "*fp32",
                "scanned_sums_ptr": "*fp32",
                "out_ptr": "*fp32",
                "n_elements": "i32",
            },
            aligned=("x_ptr", "scanned_sums_ptr", "out_ptr", "n_elements"),
            shows="pass 3: the block scan crosses warps through shared memory",
            launch=1,
        ),
    ),
    grid_probe={"numel": (1 << 31) + 5},  # more than 2**31 elements
)
