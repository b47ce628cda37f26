"""Sum of all elements: ``reduce_sum(x)``, a deterministic two-stage reduction.

Versions
    ``reduce_sum_v1_kernel``: each program loads ``BLOCK_SIZE`` elements,
    widens them to float32 and reduces them with a tree (``tl.sum``) to one
    partial sum. Stage one runs it over the input; stage two runs the same
    kernel over the float32 partials, again and again, until one value is
    left. No atomics: every partial lands in its own slot and is combined in a
    fixed order, so repeated calls give bitwise-identical results.
    Launched alone by ``reduce_sum_v1``.

    Version 2 (``reduce_sum``, the launcher): the first stage is
    ``reduce_sum_v2_kernel``, a persistent grid-stride loop. A fixed number
    of programs (``PERSISTENT_PROGRAMS``, four per SM of an H200, the same
    on every device so the result is too) each walk the whole
    blocks ``pid, pid + programs, ...`` with no mask (128-bit loads at any
    length), adding into a float32 vector, and write one partial. A v1 tail
    program adds the last partial block into one more slot; v1 then reduces
    the partials (one per program, plus the tail's) in one more launch.
    Still no atomics, still a fixed order: bitwise repeatable, on every
    device alike.

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

from kernels.descriptor import Launch
from kernels.devices import H200

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
BLOCK_SIZE = 4096
NUM_WARPS = 8
#: Version 2's first stage: this many programs, whatever the device: four
#: per SM of an H200 (132 SMs), all resident at once (40 registers allow 6
#: programs of 256 threads per SM), so there is no second wave.
PERSISTENT_PROGRAMS = 4 * H200.sm_count
LATEST = 2


def launch_config(
    dtype: torch.dtype,
    numel: int,
    *,
    block_size: int = BLOCK_SIZE,
    version: int = LATEST,
) -> list[Launch]:
    """Version 1: every stage launches the same kernel with the same tile,
    whatever the dtype and size (an empty tensor still launches once, to
    write the 0). Version 2: the persistent first stage when there is a
    whole block, then v1 for the tail and the later stages."""
    tile = {"BLOCK_SIZE": block_size}
    v1 = Launch("reduce_sum_v1_kernel", tile, num_warps=NUM_WARPS)
    if version == 1:
        return [v1]
    if version not in (2, 3):
        raise ValueError(f"version must be 1, 2 or 3, got {version}")
    if version == 3:  # two blocks per trip: needs one whole pair
        main = Launch("reduce_sum_v3_kernel", tile, num_warps=NUM_WARPS)
        return [main, v1] if numel >= 2 * block_size else [v1]
    main = Launch("reduce_sum_v2_kernel", tile, num_warps=NUM_WARPS)
    return [main, v1] if numel >= block_size else [v1]


def reduce_sum_ref(x: torch.Tensor) -> torch.Tensor:
    """Eager PyTorch's sum, for comparison (its summation order differs)."""
    return torch.sum(x)


# --8<-- [start:reduce-sum-v1-kernel]
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
    # --8<-- [end:reduce-sum-v1-kernel]


# --8<-- [start:reduce-sum-v2-kernel]
@triton.jit
def reduce_sum_v2_kernel(in_ptr, out_ptr, n_blocks, BLOCK_SIZE: tl.constexpr):
    # Persistent: this program adds blocks pid, pid + programs, ... (whole
    # blocks only, so no mask and 128-bit loads), lane by lane in float32.
    pid = tl.program_id(axis=0)
    programs = tl.num_programs(axis=0)
    acc = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for block in range(pid, n_blocks, programs):
        offs = tl.cast(block, tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(in_ptr + offs).to(tl.float32)
    tl.store(out_ptr + pid, tl.sum(acc, axis=0))  # one partial per program
    # --8<-- [end:reduce-sum-v2-kernel]


@triton.jit
def reduce_sum_v3_kernel(in_ptr, out_ptr, n_pairs, BLOCK_SIZE: tl.constexpr):
    # Version 2's loop unrolled by two: each trip reads a pair of adjacent
    # blocks into two accumulators, so every thread has two independent
    # 128-bit loads in flight per block's worth of work, twice the bytes in
    # flight per SM at the same occupancy.
    pid = tl.program_id(axis=0)
    programs = tl.num_programs(axis=0)
    acc0 = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    acc1 = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    for pair in range(pid, n_pairs, programs):
        offs = tl.cast(pair, tl.int64) * (2 * BLOCK_SIZE) + tl.arange(0, BLOCK_SIZE)
        acc0 += tl.load(in_ptr + offs).to(tl.float32)
        acc1 += tl.load(in_ptr + offs + BLOCK_SIZE).to(tl.float32)
    tl.store(out_ptr + pid, tl.sum(acc0 + acc1, axis=0))


def reduce_sum_v3(
    x: torch.Tensor,
    *,
    block_size: int = BLOCK_SIZE,
    programs: int = PERSISTENT_PROGRAMS,
) -> torch.Tensor:
    """Version 3: version 2 with its loop unrolled by two (not yet the
    launcher's choice: no device has timed it). Whole pairs of blocks go to
    the persistent stage; what is left, fewer than two blocks, to v1."""
    validate(x)
    values = x.contiguous().reshape(-1)
    n = values.numel()
    launches = launch_config(x.dtype, n, block_size=block_size, version=3)
    if len(launches) == 1:
        return _reduce_stages(values, x.dtype, launches[0])
    main, v1 = launches
    pairs = n // (2 * block_size)
    start = pairs * 2 * block_size
    grid = min(pairs, programs)
    tail_programs = triton.cdiv(n - start, block_size)
    partials = torch.empty(grid + tail_programs, dtype=torch.float32, device=x.device)
    reduce_sum_v3_kernel[(grid,)](
        values, partials, pairs, **main.constexprs, **main.options()
    )
    if tail_programs:  # the rest: masked v1 programs into the last slots
        reduce_sum_v1_kernel[(tail_programs,)](
            values[start:], partials[grid:], n - start,
            **v1.constexprs, **v1.options(),
        )  # fmt: skip
    return _reduce_stages(partials, x.dtype, v1)


def validate(x: object) -> None:
    """Raise TypeError naming the argument; launch nothing."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in SUPPORTED_DTYPES:
        allowed = "float32, float16 or bfloat16"
        raise TypeError(f"x has dtype {x.dtype}; use {allowed}")


# --8<-- [start:reduce-sum]
def reduce_sum(
    x: torch.Tensor,
    *,
    block_size: int = BLOCK_SIZE,
    programs: int = PERSISTENT_PROGRAMS,
) -> torch.Tensor:
    """Return the sum of all elements of ``x`` as a 0-d tensor of its dtype
    (version 2: a persistent first stage, then version 1's stages).

    ``block_size`` (a power of two) and ``programs`` are for tests that need
    several stages and several loop steps on small inputs."""
    validate(x)
    values = x.contiguous().reshape(-1)
    n = values.numel()
    launches = launch_config(x.dtype, n, block_size=block_size)
    if len(launches) == 1:  # less than one whole block: version 1 alone
        return _reduce_stages(values, x.dtype, launches[0])
    main, v1 = launches
    whole = n // block_size
    start = whole * block_size
    grid = min(whole, programs)
    partials = torch.empty(grid + (start < n), dtype=torch.float32, device=x.device)
    reduce_sum_v2_kernel[(grid,)](
        values, partials, whole, **main.constexprs, **main.options()
    )
    if start < n:  # the tail: one masked v1 program into the last slot
        reduce_sum_v1_kernel[(1,)](
            values[start:], partials[grid:], n - start,
            **v1.constexprs, **v1.options(),
        )  # fmt: skip
    return _reduce_stages(partials, x.dtype, v1)
    # --8<-- [end:reduce-sum]


def reduce_sum_v1(x: torch.Tensor, *, block_size: int = BLOCK_SIZE) -> torch.Tensor:
    """Version 1: every stage is the one-block-per-program v1 kernel."""
    validate(x)
    values = x.contiguous().reshape(-1)
    (launch,) = launch_config(x.dtype, values.numel(), block_size=block_size, version=1)
    return _reduce_stages(values, x.dtype, launch)


def _reduce_stages(values: torch.Tensor, dtype: torch.dtype, launch: Launch):
    """v1 stages until one value is left, rounded once to ``dtype``."""
    block_size = launch.constexprs["BLOCK_SIZE"]
    while True:
        n_blocks = max(1, triton.cdiv(values.numel(), block_size))
        # Partials stay float32; only the final value is rounded to x.dtype.
        out_dtype = torch.float32 if n_blocks > 1 else dtype
        out = torch.empty(n_blocks, dtype=out_dtype, device=values.device)
        reduce_sum_v1_kernel[(n_blocks,)](
            values,
            out,
            values.numel(),
            **launch.constexprs,
            **launch.options(),
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
