"""Softmax over the last dimension: ``exp(x - max) / sum(exp(x - max))``.

Versions
    ``softmax_v1_kernel`` (fused): one program per row loads the whole row
    into one block, takes its max and sum, and writes the result: one read and
    one write per element. Only for rows up to ``FUSED_MAX_BLOCK`` columns.
    ``softmax_v2_kernel`` (online): for rows of any length. A first pass over
    the row in ``BLOCK``-wide chunks keeps, in every lane, a running max and a
    running sum of ``exp(x - running max)``, rescaling the sum whenever the
    max grows; the lanes are then merged into one max and one sum (Milakov
    and Gimelshein, "Online normalizer calculation for softmax", 2018). A
    second pass writes the result, so each element is read twice.
    ``softmax_v3_kernel`` (fused, persistent): v1's math, but a fixed grid
    of programs (``PERSISTENT_WARPS_PER_SM`` warps' worth per SM) each loops
    over rows ``pid, pid + programs, ...``, loading its next row before it
    reduces and writes the current one, so that load is in flight meanwhile
    (two rows held in registers).
    ``softmax_v4_kernel`` (online, one exponential): v2, but the first pass
    takes one exponential per element instead of two. With ``d = x - max``
    it computes ``e = exp(-|d|)``: when ``x`` raises the max, the old sum is
    rescaled by ``e`` and gains 1; otherwise it gains ``e``.
    ``softmax`` picks v3 when the row fits in one block, v4 otherwise; v1 and
    v2 stay, as ``softmax_v1`` and ``softmax_v2``.

Contract
    Any tensor with at least one dimension, float32, float16 or bfloat16, any
    strides (rows whose last dimension is not contiguous are copied first).
    The math is float32; the result has the input's dtype and shape and is a
    new contiguous tensor; the input is never written. Non-finite inputs give
    what ``torch.softmax`` gives: a row holding a NaN or a +inf becomes all
    NaN (+inf - +inf is NaN); a row of only -inf becomes all NaN; a -inf among
    finite values becomes 0. Large finite values do not overflow: the max is
    subtracted before ``exp``. Anything else raises ``TypeError`` or
    ``ValueError`` naming the argument, before any launch.

Configs (fixed, so compiled artifacts are reproducible)
    v1: ``BLOCK`` = next power of two >= the row length (at least 16); 4
    warps up to 1024 columns, 8 up to 4096, 16 beyond; ``softmax`` uses v1
    up to 16384 columns (32 values per thread at 16 warps, no spills).
    v2: 4096-column chunks, 8 warps. Both launch with one pipeline stage.

Rows of 65K columns, on chip (not built)
    The review's change for the 65K goal is to keep each row on chip, so
    it is read once instead of twice. Two artifact builds of v1 at 65536
    bf16 columns (``v1-bf16-65536``, 16 warps, and ``v1-bf16-65536-32-warps``,
    the most a block may have) record why one block cannot: the float32 row
    needs 64 registers a thread at 1,024 threads, which is the whole
    per-thread budget there, and ptxas spills to local memory at both
    widths (the sm_90a artifact). Probes that kept the row in bf16 at 32 warps
    (the max taken in bf16 through ``tl.reduce`` with a select, so no
    float32 copy is made for it, and the exponential taken again for the
    output from a second, bitwise widening the compiler cannot merge with
    the first) still spilled 30 to 40 bytes of stores a thread at 64
    registers, in each of three arrangements (Triton 3.8, sm_90a,
    ``ptxas -v``, 2026-12-01; not kept, as none showed the intended code).
    Splitting a row over several programs keeps it on chip only if they run
    together and exchange their (max, sum) before writing: a spin-wait
    across programs (which deadlocks Triton's interpreter, which runs
    programs one after another) or a thread-block cluster's distributed
    shared memory, as QuACK does, which ``triton.language`` does not
    expose. A split whose partial statistics merge in a second launch must
    read the row again, as v4 does. So no version here keeps a 65K row on
    chip; v4 stays the launcher's choice.

Napkin math
    ``bytes_moved``: the least traffic reads every element once and writes it
    once, 2 * rows * cols * itemsize; v2 reads the row a second time, 3 * rows
    * cols * itemsize from L2 or HBM, the extra read hitting L2 when the rows
    in flight fit there. ``flops``: a compare for the max, a subtract, an exp,
    an add into the sum and a multiply by 1 / sum: 5 per element (an exp
    counted as one operation).
"""

import math

import torch
import triton
import triton.language as tl

from kernels.descriptor import Launch
from kernels.devices import H200

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
FUSED_MAX_BLOCK = 16384  # widest row v1 keeps in registers at once
ONLINE_BLOCK = 4096  # chunk width for v2
ONLINE_WARPS = 8
# One stage: v1 has no loop to pipeline, v3 prefetches its next row by
# hand, and the compiled artifacts of every version are built with one.
NUM_STAGES = 1
#: v3's grid: this many warps per SM in all (a half-full SM), so the
#: programs' registers fit at once and no second wave forms.
PERSISTENT_WARPS_PER_SM = 32
#: SMs assumed off a GPU (an H200 has 132); a GPU reports its own.
DEFAULT_SMS = H200.sm_count


def fused_num_warps(block: int) -> int:
    """More warps for wider rows, so each thread holds at most 32 values."""
    if block <= 1024:
        return 4
    return 8 if block <= 4096 else 16


def launch_config(
    dtype: torch.dtype,
    rows: int,
    cols: int,
    *,
    version: str | None = None,
    block: int = ONLINE_BLOCK,
    warps: int | None = None,
) -> list[Launch]:
    """One launch per call, none for an empty x. ``version`` None is what
    ``softmax`` picks: v3 when the row fits in one block, v4 otherwise. The
    same config for every dtype. ``warps`` overrides v1's warp count (the
    artifact build that tries a whole 65K row in one block of 32 warps)."""
    if rows * cols == 0:
        return []
    if version is None:
        version = "v3" if cols <= FUSED_MAX_BLOCK else "v4"
    if version not in ("v1", "v2", "v3", "v4", "backward"):
        raise ValueError(f"version must be v1, v2, v3, v4 or backward, got {version!r}")
    if version == "backward":  # the gradient: a whole row in one block, as v1
        width = max(16, triton.next_power_of_2(cols))
        tile = {"BLOCK": width}
        options = {"num_warps": fused_num_warps(width), "num_stages": NUM_STAGES}
        return [Launch("softmax_backward_kernel", tile, **options)]
    if version in ("v1", "v3"):
        width = max(16, triton.next_power_of_2(cols))  # the whole row
        warps = warps or fused_num_warps(width)
    else:
        width, warps = block, ONLINE_WARPS
    kernel = f"softmax_{version}_kernel"
    return [Launch(kernel, {"BLOCK": width}, num_warps=warps, num_stages=NUM_STAGES)]


def softmax_ref(x: torch.Tensor) -> torch.Tensor:
    """The answer every version must match: eager PyTorch."""
    return torch.softmax(x, dim=-1)


@triton.jit
def softmax_v1_kernel(
    x_ptr, out_ptr, cols, x_row_stride, out_row_stride, BLOCK: tl.constexpr
):
    row = tl.program_id(axis=0).to(tl.int64)  # rows * stride may pass 2**31
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    # Lanes past the row hold -inf, so they add exp(-inf) = 0 to the sum.
    x_row = x_ptr + row * x_row_stride
    x = tl.load(x_row + offs, mask=mask, other=-float("inf")).to(tl.float32)
    shifted = x - tl.max(x, axis=0)  # the largest term becomes exp(0) = 1
    numerator = tl.exp(shifted)
    inv_sum = 1.0 / tl.sum(numerator, axis=0)
    out = (numerator * inv_sum).to(out_ptr.dtype.element_ty)
    tl.store(out_ptr + row * out_row_stride + offs, out, mask=mask)


@triton.jit
def softmax_v2_kernel(
    x_ptr, out_ptr, cols, x_row_stride, out_row_stride, BLOCK: tl.constexpr
):
    row = tl.program_id(axis=0).to(tl.int64)
    x_row = x_ptr + row * x_row_stride
    out_row = out_ptr + row * out_row_stride
    offs = tl.arange(0, BLOCK)
    # --8<-- [start:v2-pass-1]
    # Pass 1: lane i sees columns i, i + BLOCK, ... and keeps its own max and
    # sum of exp(x - max), so the loop needs no cross-lane reduction.
    run_max = tl.full((BLOCK,), -float("inf"), tl.float32)
    run_sum = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, cols, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_row + start + offs, mask=mask, other=-float("inf"))
        x = x.to(tl.float32)
        new_max = tl.maximum(run_max, x)
        # A lane that has seen only -inf shifts by 0, not by -inf, so that
        # -inf - -inf does not turn its sum of zeros into NaN.
        shift = tl.where(new_max == -float("inf"), 0.0, new_max)
        run_sum = run_sum * tl.exp(run_max - shift) + tl.exp(x - shift)
        run_max = new_max
    # --8<-- [end:v2-pass-1]
    # --8<-- [start:v2-merge-lanes]
    # Merge the lanes: one max, and every lane's sum rescaled to it.
    row_max = tl.max(run_max, axis=0)
    row_sum = tl.sum(run_sum * tl.exp(run_max - row_max), axis=0)
    inv_sum = 1.0 / row_sum
    # Pass 2: read the row again and write the normalized values.
    for start in range(0, cols, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_row + start + offs, mask=mask, other=-float("inf"))
        out = tl.exp(x.to(tl.float32) - row_max) * inv_sum
        out = out.to(out_ptr.dtype.element_ty)
        tl.store(out_row + start + offs, out, mask=mask)
    # --8<-- [end:v2-merge-lanes]


@triton.jit
def softmax_v3_kernel(
    x_ptr, out_ptr, rows, cols, x_row_stride, out_row_stride, BLOCK: tl.constexpr
):
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    programs = tl.num_programs(axis=0)
    first = tl.program_id(axis=0)
    # Persistent: rows first, first + programs, ... Each step issues the
    # load of its next row before reducing this one, so that load is in
    # flight during the reductions and the store (two rows in registers).
    x_next = tl.load(
        x_ptr + tl.cast(first, tl.int64) * x_row_stride + offs,
        mask=mask & (first < rows),
        other=-float("inf"),
    )
    for row in range(first, rows, programs):
        x = x_next.to(tl.float32)
        ahead = tl.cast(row + programs, tl.int64)  # rows * stride may pass 2**31
        x_next = tl.load(
            x_ptr + ahead * x_row_stride + offs,
            mask=mask & (ahead < rows),
            other=-float("inf"),
        )
        row64 = tl.cast(row, tl.int64)
        shifted = x - tl.max(x, axis=0)
        numerator = tl.exp(shifted)
        inv_sum = 1.0 / tl.sum(numerator, axis=0)
        out = (numerator * inv_sum).to(out_ptr.dtype.element_ty)
        tl.store(out_ptr + row64 * out_row_stride + offs, out, mask=mask)


@triton.jit
def softmax_v4_kernel(
    x_ptr, out_ptr, cols, x_row_stride, out_row_stride, BLOCK: tl.constexpr
):
    row = tl.program_id(axis=0).to(tl.int64)
    x_row = x_ptr + row * x_row_stride
    out_row = out_ptr + row * out_row_stride
    offs = tl.arange(0, BLOCK)
    run_max = tl.full((BLOCK,), -float("inf"), tl.float32)
    run_sum = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, cols, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_row + start + offs, mask=mask, other=-float("inf"))
        x = x.to(tl.float32)
        # --8<-- [start:v4-one-exponential]
        # One exponential: e = exp(-|x - max|) is exp(x - max) when x is not
        # above the max, and exp(old max - x), the rescale, when it is. A
        # lane that has seen only -inf measures from 0 instead (its sum is 0,
        # so e is not used), so -inf - -inf never makes a NaN.
        base = tl.where(run_max == -float("inf"), 0.0, run_max)
        e = tl.exp(-tl.abs(x - base))
        grows = x > run_max
        run_sum = tl.where(grows, run_sum * e + 1.0, run_sum + e)
        run_max = tl.where(grows, x, run_max)
        # --8<-- [end:v4-one-exponential]
        # A NaN compares false: it lands in the sum through e, as in v2.
    row_max = tl.max(run_max, axis=0)
    row_sum = tl.sum(run_sum * tl.exp(run_max - row_max), axis=0)
    inv_sum = 1.0 / row_sum
    for start in range(0, cols, BLOCK):
        mask = start + offs < cols
        x = tl.load(x_row + start + offs, mask=mask, other=-float("inf"))
        out = tl.exp(x.to(tl.float32) - row_max) * inv_sum
        tl.store(out_row + start + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def validate(x: object) -> None:
    """Raise TypeError or ValueError naming the bad argument; launch nothing."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in SUPPORTED_DTYPES:
        allowed = "float32, float16 or bfloat16"
        raise TypeError(f"x has dtype {x.dtype}; use {allowed}")
    if x.dim() == 0:
        raise ValueError("x is 0-d; softmax needs a last dimension")


def _as_rows(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A (rows, cols) view of x with unit column stride, and its output."""
    rows = math.prod(x.shape[:-1])
    rows_view = x.reshape(rows, x.shape[-1])  # copies only if it must
    if rows_view.stride(1) != 1:
        rows_view = rows_view.contiguous()
    out = torch.empty(rows_view.shape, dtype=x.dtype, device=x.device)
    return rows_view, out


def _launch(
    x: torch.Tensor, launches: list[Launch], programs: int | None = None
) -> torch.Tensor:
    """Run the launches of ``launch_config`` over the rows of x (``programs``:
    v3's grid, by default as many as fill the SMs)."""
    rows_view, out = _as_rows(x)
    rows = rows_view.shape[0]
    for launch in launches:
        kernel = _KERNELS[launch.kernel]
        if launch.kernel == "softmax_v3_kernel":  # persistent: a fixed grid
            if programs is None:
                sms = DEFAULT_SMS
                if x.is_cuda:
                    props = torch.cuda.get_device_properties(x.device)
                    sms = props.multi_processor_count
                programs = sms * (PERSISTENT_WARPS_PER_SM // launch.num_warps)
            kernel[(min(rows, programs),)](
                rows_view, out, rows, rows_view.shape[1],
                rows_view.stride(0), out.stride(0),
                **launch.constexprs, **launch.options(),
            )  # fmt: skip
            continue
        kernel[(rows,)](
            rows_view, out, rows_view.shape[1],
            rows_view.stride(0), out.stride(0),
            **launch.constexprs, **launch.options(),
        )  # fmt: skip
    return out.view(x.shape)


_KERNELS = {
    "softmax_v1_kernel": softmax_v1_kernel,
    "softmax_v2_kernel": softmax_v2_kernel,
    "softmax_v3_kernel": softmax_v3_kernel,
    "softmax_v4_kernel": softmax_v4_kernel,
}


# --8<-- [start:backward]
@triton.jit
def softmax_backward_kernel(
    y_ptr, dy_ptr, dx_ptr, cols, row_stride, BLOCK: tl.constexpr
):
    # The gradient of y = softmax(x) from the saved output y, no x needed:
    # dx = y * (dy - sum(dy * y)). One row per program, in float32.
    row = tl.program_id(axis=0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    base = row * row_stride
    y = tl.load(y_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
    dot = tl.sum(dy * y, axis=0)  # lanes past the row add 0 * 0
    dx = y * (dy - dot)
    tl.store(dx_ptr + base + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    # --8<-- [end:backward]


def softmax_backward(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """The gradient of ``softmax(x)`` along the last dimension, from its
    output ``y`` and the incoming gradient ``dy``: it reads y and dy once and
    writes dx once (3 * numel * itemsize bytes), recomputing nothing, since
    the output holds everything the gradient needs. Rows up to
    FUSED_MAX_BLOCK columns; the result has y's dtype and shape."""
    validate(y)
    if not isinstance(dy, torch.Tensor) or dy.shape != y.shape or dy.dtype != y.dtype:
        raise ValueError("dy must be a tensor with y's shape and dtype")
    if dy.device != y.device:
        raise ValueError(f"dy is on {dy.device} but y is on {y.device}")
    if y.shape[-1] > FUSED_MAX_BLOCK:
        raise ValueError(
            f"y has rows of {y.shape[-1]} columns; softmax_backward takes at "
            f"most {FUSED_MAX_BLOCK}"
        )
    rows, cols = _rows_cols(y)
    y2 = y.reshape(rows, cols).contiguous()
    dy2 = dy.reshape(rows, cols).contiguous()
    dx = torch.empty_like(y2)
    for launch in launch_config(y.dtype, rows, cols, version="backward"):
        softmax_backward_kernel[(rows,)](
            y2, dy2, dx, cols, cols, **launch.constexprs, **launch.options()
        )
    return dx.reshape(y.shape)


def _rows_cols(x: torch.Tensor) -> tuple[int, int]:
    return math.prod(x.shape[:-1]), x.shape[-1]


def softmax_v1(x: torch.Tensor) -> torch.Tensor:
    """Fused softmax: a whole row in one block (up to FUSED_MAX_BLOCK)."""
    validate(x)
    if x.shape[-1] > FUSED_MAX_BLOCK:
        raise ValueError(
            f"x has rows of {x.shape[-1]} columns; softmax_v1 takes at most "
            f"{FUSED_MAX_BLOCK}: use softmax_v2"
        )
    return _launch(x, launch_config(x.dtype, *_rows_cols(x), version="v1"))


def softmax_v2(x: torch.Tensor, block: int = ONLINE_BLOCK) -> torch.Tensor:
    """Online softmax: running max and sum over ``block``-wide chunks."""
    validate(x)
    if not isinstance(block, int) or block < 16 or block & (block - 1):
        raise ValueError(f"block must be a power of two >= 16, got {block!r}")
    launches = launch_config(x.dtype, *_rows_cols(x), version="v2", block=block)
    return _launch(x, launches)


def softmax_v3(x: torch.Tensor, *, programs: int | None = None) -> torch.Tensor:
    """Fused softmax with a persistent row loop (up to FUSED_MAX_BLOCK);
    ``programs`` is for tests that need several rows per program."""
    validate(x)
    if x.shape[-1] > FUSED_MAX_BLOCK:
        raise ValueError(
            f"x has rows of {x.shape[-1]} columns; softmax_v3 takes at most "
            f"{FUSED_MAX_BLOCK}: use softmax_v4"
        )
    launches = launch_config(x.dtype, *_rows_cols(x), version="v3")
    return _launch(x, launches, programs)


def softmax_v4(x: torch.Tensor, block: int = ONLINE_BLOCK) -> torch.Tensor:
    """Online softmax, one exponential per element in its first pass."""
    validate(x)
    if not isinstance(block, int) or block < 16 or block & (block - 1):
        raise ValueError(f"block must be a power of two >= 16, got {block!r}")
    launches = launch_config(x.dtype, *_rows_cols(x), version="v4", block=block)
    return _launch(x, launches)


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dimension: v3 (one fused pass, persistent) when
    the row fits, else v4 (online)."""
    validate(x)
    return _launch(x, launch_config(x.dtype, *_rows_cols(x)))


def bytes_moved(rows: int, cols: int, itemsize: int) -> int:
    """Least traffic: read every element once, write every element once."""
    return 2 * rows * cols * itemsize


def flops(rows: int, cols: int) -> int:
    """Compare, subtract, exp, add, multiply: 5 operations per element."""
    return 5 * rows * cols
