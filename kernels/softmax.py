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
    ``softmax`` picks v1 when the row fits in one block, v2 otherwise.

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

from kernels.bounds import EPS32, eps
from kernels.descriptor import ArtifactBuild, Descriptor, Goal, Launch, Target
from kernels.inputs import nonzero_inputs

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
FUSED_MAX_BLOCK = 16384  # widest row v1 keeps in registers at once
ONLINE_BLOCK = 4096  # chunk width for v2
ONLINE_WARPS = 8
# One stage: v1 has no loop to pipeline, and the compiled artifacts of both
# versions are built with one.
NUM_STAGES = 1


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
) -> list[Launch]:
    """One launch per call, none for an empty x. ``version`` None is what
    ``softmax`` picks: v1 when the row fits in one block, v2 otherwise. The
    same config for every dtype."""
    if rows * cols == 0:
        return []
    if version is None:
        version = "v1" if cols <= FUSED_MAX_BLOCK else "v2"
    if version == "v1":
        width = max(16, triton.next_power_of_2(cols))  # the whole row
        warps = fused_num_warps(width)
        kernel = "softmax_v1_kernel"
    else:
        width, warps, kernel = block, ONLINE_WARPS, "softmax_v2_kernel"
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


def _launch(x: torch.Tensor, launches: list[Launch]) -> torch.Tensor:
    """Run the launches of ``launch_config`` over the rows of x."""
    rows_view, out = _as_rows(x)
    for launch in launches:
        kernel = _KERNELS[launch.kernel]
        kernel[(rows_view.shape[0],)](
            rows_view, out, rows_view.shape[1],
            rows_view.stride(0), out.stride(0),
            **launch.constexprs, **launch.options(),
        )  # fmt: skip
    return out.view(x.shape)


_KERNELS = {
    "softmax_v1_kernel": softmax_v1_kernel,
    "softmax_v2_kernel": softmax_v2_kernel,
}


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


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dimension; one fused pass when the row fits."""
    validate(x)
    return _launch(x, launch_config(x.dtype, *_rows_cols(x)))


def bytes_moved(rows: int, cols: int, itemsize: int) -> int:
    """Least traffic: read every element once, write every element once."""
    return 2 * rows * cols * itemsize


def flops(rows: int, cols: int) -> int:
    """Compare, subtract, exp, add, multiply: 5 operations per element."""
    return 5 * rows * cols


# --------------------------------------------------------------------------
# What the tools need to know (see kernels/descriptor.py)
# --------------------------------------------------------------------------


def error_bound(inputs, truth, dtype, shape):
    """Relative: two ulps of the output dtype for the final rounding, plus
    float32 rounding in the row's max, exps and sum, which grows like the
    square root of the row length."""
    relative = 2 * eps(dtype) + 8 * math.sqrt(shape["cols"]) * EPS32
    return relative * truth.abs()


def _signature(dtype: str) -> dict[str, str]:
    return {
        "x_ptr": f"*{dtype}",
        "out_ptr": f"*{dtype}",
        "cols": "i32",
        "x_row_stride": "i32",
        "out_row_stride": "i32",
    }


_ALIGNED = ("x_ptr", "out_ptr", "cols", "x_row_stride", "out_row_stride")


def _rc(rows: int, cols: int) -> dict[str, int]:
    return {"rows": rows, "cols": cols}


DESCRIPTOR = Descriptor(
    name="softmax",
    title="softmax",
    launcher=softmax,
    reference=softmax_ref,
    metric="bandwidth",
    # H200: L2 is 50 MB; HBM-bound shapes keep the data at least 4x L2.
    # 4096×1024 fits in L2, and 65536-wide rows take the online version.
    shapes={
        "tiny": (_rc(7, 1000),),
        "quick": (_rc(32768, 4096),),
        "full": (
            _rc(4096, 1024),
            _rc(32768, 4096),
            _rc(16384, 8191),
            _rc(2048, 65536),
        ),
    },
    make_inputs=lambda shape, dtype, device, seed: nonzero_inputs(
        [(shape["rows"], shape["cols"])], dtype, device, seed
    ),
    bytes_moved=lambda shape, itemsize: bytes_moved(
        shape["rows"], shape["cols"], itemsize
    ),
    flops=lambda shape: flops(shape["rows"], shape["cols"]),
    launch_config=lambda dtype, shape: launch_config(
        dtype, shape["rows"], shape["cols"]
    ),
    error_bound=error_bound,
    shape_text=lambda shape: f"{shape['rows']}×{shape['cols']}",
    eager_is="torch.softmax (the library op)",
    goals=(
        Goal(
            regime="row fits on chip",
            must=(Target("R", 0.95), Target("F_bw", 0.80)),
            stretch=(Target("F_bw", 0.88),),
        ),
        Goal(
            regime="65k-wide rows",
            must=(
                Target("R", 0.90, shape=_rc(2048, 65536)),
                Target("F_bw", 0.55, shape=_rc(2048, 65536)),
            ),
            stretch=(Target("F_bw", 0.62, shape=_rc(2048, 65536)),),
        ),
    ),
    artifact_builds=(
        ArtifactBuild(
            build="v1-fp32-4096",
            dtype="float32",
            shape=_rc(1024, 4096),
            signature=_signature("fp32"),
            aligned=_ALIGNED,
            shows="fused: 128-bit loads, the row's max and sum through warp shuffles",
        ),
        ArtifactBuild(
            build="v1-bf16-16384",
            dtype="bfloat16",
            shape=_rc(1024, FUSED_MAX_BLOCK),
            signature=_signature("bf16"),
            aligned=_ALIGNED,
            shows="the widest fused row: 32 values per thread, still no spills",
        ),
        ArtifactBuild(
            build="v2-bf16-4096",
            dtype="bfloat16",
            shape=_rc(2048, 65536),
            signature=_signature("bf16"),
            aligned=_ALIGNED,
            shows="online: two loops over 4096-wide chunks, 128-bit loads",
        ),
    ),
    grid_probe={"rows": 3_000_000, "cols": 3},  # one program per row
)
