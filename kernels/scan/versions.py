"""Inclusive prefix sum of a 1-D tensor: ``cumsum(x)``, across many blocks.

Versions
    Version 1, ``cumsum_v1`` (reduce, then scan), runs three passes over
    blocks of ``BLOCK_SIZE`` elements:

    1. ``scan_block_sums_kernel``: each program writes the float32 total of
       its block.
    2. The block totals form a shorter 1-D scan problem, solved by
       ``cumsum_v1`` itself (recursively, so any number of blocks works).
       Entry ``b - 1`` of that scan is the carry into block ``b``: the sum of
       everything before it.
    3. ``scan_v1_kernel``: each program scans its own block
       (``block_inclusive_scan``) and adds its carry.

    Version 2, ``cumsum`` (the launcher), is a single pass with decoupled
    look-back (Merrill and Garland's scheme): ``scan_v2_kernel`` takes a
    ticket from an atomic counter as its block number, scans its block,
    publishes the block's total, then walks back over the blocks before it,
    adding their published totals until it meets one that has published its
    inclusive prefix; it publishes its own prefix and stores. It reads and
    writes every element once. A main launch covers the whole blocks with
    no mask (128-bit loads and stores whatever the length); a tail launch of
    one program, the same kernel with ``MASKED``, takes the partial block.

    Forward progress: a block waits only for blocks with smaller tickets,
    and a ticket is taken by a program that is already running, so the
    blocks it waits for are running too and finish whatever the GPU's
    scheduling order. The CPU interpreter runs programs one at a time, in
    order: there every look-back finds its predecessor's prefix at once.
    Interpreter tests therefore check the values (and, by seeding the state
    by hand, the walk past totals), never forward progress or memory
    ordering; those need a GPU.

    Version 3, ``cumsum_v3`` (not yet the launcher's choice: no device has
    timed it), is version 2 with CUB's windowed look-back: each trip of the
    look-back loop reads the state words of the ``LOOKBACK_WINDOW`` blocks
    before it at once, with plain volatile loads, one word per lane of a
    warp, and reduces them within the warp: the nearest inclusive prefix in
    the window ends the walk, and the totals after it are added. Version 2
    reads one predecessor per trip through a scalar atomic, which Triton
    broadcasts to the block through shared memory, with barriers, on every
    trip; version 3's loop has no atomic and no barrier, and walks up to 32
    blocks per trip. Each warp walks with its own loads, so warps may see a
    window at different moments; one warp's carry is then made the block's
    by a single exchange after the loop (written by one thread, read back by
    one scalar atomic: one broadcast, not one per trip).

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
    ``ValueError`` for a tensor that is not 1-D. Version 2 on a GPU: where a
    look-back stops depends on timing, so the float32 carries may be grouped
    differently from run to run and the last bits can differ (within the
    error bound); version 1 and the interpreter are bitwise repeatable.

Napkin math
    An inclusive scan must read every element once and write every element
    once: ``2 * numel * itemsize`` bytes and ``numel - 1`` additions.
    Version 1 reads the input twice (passes 1 and 3), so it moves
    ``3 * numel * itemsize`` bytes plus the block totals; version 2 moves the
    2, plus 8 bytes of state per ``SINGLE_PASS_BLOCK`` elements.
"""

import torch
import triton
import triton.language as tl

from kernels.descriptor import Launch

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
BLOCK_SIZE = 1024
NUM_WARPS = 4
#: Version 2's tile: 16 float32 values per thread, four 128-bit loads.
SINGLE_PASS_BLOCK = 4096
SINGLE_PASS_WARPS = 8
#: Version 3: predecessors read per look-back trip, one per lane of a warp.
LOOKBACK_WINDOW = 32
LATEST = 2


def launch_config(
    dtype: torch.dtype,
    numel: int,
    *,
    block_size: int | None = None,
    version: int = LATEST,
) -> list[Launch]:
    """The distinct launches of ``cumsum`` (version 2, single pass) or of
    ``cumsum_v1`` (version 1, three passes), in first-launch order."""
    if version == 1:
        return launch_config_v1(dtype, numel, block_size=block_size or BLOCK_SIZE)
    if version not in (2, 3):
        raise ValueError(f"version must be 1, 2 or 3, got {version}")
    block_size = block_size or SINGLE_PASS_BLOCK
    main, tail = numel // block_size, numel % block_size
    kernel = f"scan_v{version}_kernel"
    window = {"WINDOW": LOOKBACK_WINDOW} if version == 3 else {}
    launches = []
    for masked, present in ((False, main), (True, tail)):
        if present:
            tile = {"BLOCK_SIZE": block_size, "MASKED": masked, **window}
            launches.append(Launch(kernel, tile, num_warps=SINGLE_PASS_WARPS))
    return launches


def launch_config_v1(
    dtype: torch.dtype, numel: int, *, block_size: int = BLOCK_SIZE
) -> list[Launch]:
    """The distinct launches of ``cumsum_v1``, in first-launch order: pass 1's
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
    pass_1 = launch_config_v1(x.dtype, x.numel(), block_size=block_size)[0]
    scan_block_sums_kernel[(n_blocks,)](
        x, block_sums, x.numel(), **pass_1.constexprs, **pass_1.options()
    )
    # Pass 2: the totals are a shorter scan; one block ends the recursion.
    return cumsum_v1(block_sums, block_size=block_size)
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


def cumsum_v1(x: torch.Tensor, *, block_size: int = BLOCK_SIZE) -> torch.Tensor:
    """Version 1: inclusive prefix sum of ``x`` in three passes (3N bytes)."""
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
    pass_3 = launch_config_v1(x.dtype, values.numel(), block_size=block_size)[-1]
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


# --8<-- [start:look-back]
# Per-block state, one int64 word each: the flag in the high 32 bits, the
# float32 value's bits in the low 32. One 64-bit store publishes both, so a
# reader never sees a flag with a stale value.
# Flags: 0, nothing published yet; 1, the value is the total of this block
# alone; 2, the value is the total of this block and every block before it.
FLAG_NOT_READY = tl.constexpr(0)
FLAG_AGGREGATE = tl.constexpr(1)
FLAG_PREFIX = tl.constexpr(2)


@triton.jit
def _pack(flag, value):
    # flag: an int64 scalar; value: a float32 scalar.
    bits = value.to(tl.int32, bitcast=True).to(tl.int64) & 0xFFFFFFFF
    return (flag << 32) | bits


@triton.jit
def scan_v2_kernel(
    x_ptr,
    out_ptr,
    state_ptr,
    ticket_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
    MASKED: tl.constexpr,
):
    # A ticket, not the program id, says which block this program scans:
    # tickets are handed out in the order programs start, so every block
    # this one waits for belongs to a program that is already running.
    # (Waiting on program_id - 1 could wait for a program the GPU has not
    # scheduled yet, behind this one: a deadlock.)
    block = tl.atomic_add(ticket_ptr, 1)
    offs = block.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    if MASKED:  # the tail launch: one block, past the aligned part
        mask = offs < n_elements
        values = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    else:  # the main launch: whole blocks only, no mask, 128-bit loads
        values = tl.load(x_ptr + offs).to(tl.float32)
    running = tl.cumsum(values, axis=0)
    aggregate = tl.sum(values, axis=0)
    # Publish this block's total at once, so later blocks can look past it.
    first = block == 0
    flag = tl.where(first, FLAG_PREFIX, FLAG_AGGREGATE).to(tl.int64)
    tl.atomic_xchg(state_ptr + block, _pack(flag, aggregate))
    # Decoupled look-back: walk back over the blocks before this one, adding
    # each published total, until one has published its inclusive prefix.
    exclusive = tl.zeros((), dtype=tl.float32)
    look = block - 1
    while look >= 0:
        # An atomic read (adding 0), not a plain load: a scalar atomic is
        # issued by one thread and its result shared with the whole block,
        # so every warp sees the same word, walks the same way and adds the
        # same carry. (Each warp's own volatile load could see a block's
        # total on one pass and its prefix on the next, and round the carry
        # differently.) Acquire: what the word says is visible once read.
        word = tl.atomic_add(state_ptr + look, 0, sem="acquire")
        seen = (word >> 32).to(tl.int32)
        value = (word & 0xFFFFFFFF).to(tl.int32).to(tl.float32, bitcast=True)
        exclusive += tl.where(seen == FLAG_NOT_READY, 0.0, value)
        # Not ready: spin on the same block. An aggregate: step back one.
        # A prefix: everything before is counted, stop.
        look = tl.where(
            seen == FLAG_PREFIX, -1, tl.where(seen == FLAG_AGGREGATE, look - 1, look)
        )
    tl.atomic_xchg(
        state_ptr + block,
        _pack(tl.full((), FLAG_PREFIX, tl.int64), exclusive + aggregate),
    )
    out = (running + exclusive).to(out_ptr.dtype.element_ty)  # round once
    if MASKED:
        tl.store(out_ptr + offs, out, mask=mask)
    else:
        tl.store(out_ptr + offs, out)
    # --8<-- [end:look-back]


# --8<-- [start:single-pass]
def cumsum(x: torch.Tensor, *, block_size: int = SINGLE_PASS_BLOCK) -> torch.Tensor:
    """Inclusive prefix sum of the 1-D tensor ``x``, as a new tensor (version
    2: one pass, reads and writes every element once)."""
    validate(x)
    values = x.contiguous()
    out = torch.empty_like(values)
    n = values.numel()
    n_blocks = triton.cdiv(n, block_size)
    if n_blocks == 0:
        return out
    # Zeroed scratch: one state word per block, one ticket counter.
    state = torch.zeros(n_blocks, dtype=torch.int64, device=x.device)
    ticket = torch.zeros(1, dtype=torch.int32, device=x.device)
    main_blocks = n // block_size
    for launch in launch_config(x.dtype, n, block_size=block_size):
        # The main launch covers whole blocks and is told only their length
        # (a multiple of 16, so the compiler may assume aligned groups); the
        # tail launch takes the next ticket, the one partial block.
        masked = launch.constexprs["MASKED"]
        grid = (1,) if masked else (main_blocks,)
        length = n if masked else main_blocks * block_size
        scan_v2_kernel[grid](
            values, out, state, ticket, length,
            **launch.constexprs, **launch.options(),
        )  # fmt: skip
    return out
    # --8<-- [end:single-pass]


# --8<-- [start:windowed-look-back]
@triton.jit
def scan_v3_kernel(
    x_ptr,
    out_ptr,
    state_ptr,
    carry_ptr,
    ticket_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
    MASKED: tl.constexpr,
    WINDOW: tl.constexpr,
):
    # Version 2's ticket, block scan and first publication.
    block = tl.atomic_add(ticket_ptr, 1)
    offs = block.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    if MASKED:
        mask = offs < n_elements
        values = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    else:
        values = tl.load(x_ptr + offs).to(tl.float32)
    running = tl.cumsum(values, axis=0)
    aggregate = tl.sum(values, axis=0)
    first = block == 0
    flag = tl.where(first, FLAG_PREFIX, FLAG_AGGREGATE).to(tl.int64)
    tl.atomic_xchg(state_ptr + block, _pack(flag, aggregate))
    # Windowed look-back: lane j of a warp reads the word of block look - j.
    # A WINDOW-long vector is one element per lane, so its reductions stay
    # inside a warp (shuffles): no shared memory, no barrier in the loop.
    lane = tl.arange(0, WINDOW)
    # Blocks before block 0 read as a published prefix of 0: the walk stops.
    before_start = tl.full((), FLAG_PREFIX, tl.int64) << 32  # value 0.0
    exclusive = tl.zeros((), dtype=tl.float32)
    look = block - 1
    while look >= 0:
        index = look - lane
        words = tl.load(
            state_ptr + index, mask=index >= 0, other=before_start, volatile=True
        )
        seen = (words >> 32).to(tl.int32)
        value = (words & 0xFFFFFFFF).to(tl.int32).to(tl.float32, bitcast=True)
        # The nearest inclusive prefix: its lane, or WINDOW when there is none.
        nearest = tl.min(tl.where(seen == FLAG_PREFIX, lane, WINDOW), axis=0)
        # Has every block up to it published? (Older ones are never needed.)
        needed = tl.where(lane <= nearest, seen, FLAG_PREFIX)
        ready = tl.min(needed, axis=0) != FLAG_NOT_READY
        taken = tl.sum(tl.where(lane <= nearest, value, 0.0), axis=0)
        exclusive += tl.where(ready, taken, 0.0)
        # Not ready: read the same window again. Ready: done at a prefix,
        # else the whole window was totals: step back past it.
        look = tl.where(ready, tl.where(nearest < WINDOW, -1, look - WINDOW), look)
    # One warp's carry becomes the block's: written by one thread, read back
    # by one scalar atomic (one broadcast, after the loop).
    # (As int32 bits: the interpreter has no float exchange.)
    tl.atomic_xchg(carry_ptr + block, exclusive.to(tl.int32, bitcast=True))
    carry_bits = tl.atomic_add(carry_ptr + block, 0, sem="acquire")
    exclusive = carry_bits.to(tl.float32, bitcast=True)
    tl.atomic_xchg(
        state_ptr + block,
        _pack(tl.full((), FLAG_PREFIX, tl.int64), exclusive + aggregate),
    )
    out = (running + exclusive).to(out_ptr.dtype.element_ty)  # round once
    if MASKED:
        tl.store(out_ptr + offs, out, mask=mask)
    else:
        tl.store(out_ptr + offs, out)
    # --8<-- [end:windowed-look-back]


def cumsum_v3(x: torch.Tensor, *, block_size: int = SINGLE_PASS_BLOCK) -> torch.Tensor:
    """Version 3: version 2 with a look-back that reads ``LOOKBACK_WINDOW``
    predecessors per trip."""
    validate(x)
    values = x.contiguous()
    out = torch.empty_like(values)
    n = values.numel()
    n_blocks = triton.cdiv(n, block_size)
    if n_blocks == 0:
        return out
    state = torch.zeros(n_blocks, dtype=torch.int64, device=x.device)
    carry = torch.zeros(n_blocks, dtype=torch.int32, device=x.device)  # bits
    ticket = torch.zeros(1, dtype=torch.int32, device=x.device)
    main_blocks = n // block_size
    for launch in launch_config(x.dtype, n, block_size=block_size, version=3):
        masked = launch.constexprs["MASKED"]
        grid = (1,) if masked else (main_blocks,)
        length = n if masked else main_blocks * block_size
        scan_v3_kernel[grid](
            values, out, state, carry, ticket, length,
            **launch.constexprs, **launch.options(),
        )  # fmt: skip
    return out


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
