"""What the tools need to know about softmax (see kernels/descriptor.py):
the error bound, the benchmark shapes, the goals and the artifact builds.
The kernels themselves are in ``versions.py``."""

import math

from kernels.bounds import EPS32, eps
from kernels.descriptor import ArtifactBuild, Descriptor, Goal, Target
from kernels.softmax.versions import (
    FUSED_MAX_BLOCK,
    bytes_moved,
    flops,
    launch_config,
    softmax,
    softmax_ref,
)


def operands(rows: int, cols: int) -> list[tuple[int, int]]:
    """One (rows, cols) input."""
    return [(rows, cols)]


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
    operands=operands,
    count_bytes=bytes_moved,
    count_flops=flops,
    # A shape may name a version ("version": "v1"): artifact builds.
    configure=launch_config,
    error_bound=error_bound,
    shape_format="{rows}×{cols}",
    eager_is="torch.softmax (the library op)",
    goals=(
        Goal(
            regime="row fits on chip",
            # Issue 19: 0.90 of the copy probe (softmax reads N, writes N).
            must=(Target("R", 0.95), Target("F_bw", 0.90)),
            stretch=(Target("F_bw", 0.93),),
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
            shape={**_rc(1024, 4096), "version": "v1"},
            signature=_signature("fp32"),
            aligned=_ALIGNED,
            shows="fused: 128-bit loads, the row's max and sum through warp shuffles",
        ),
        ArtifactBuild(
            build="v1-bf16-16384",
            dtype="bfloat16",
            shape={**_rc(1024, FUSED_MAX_BLOCK), "version": "v1"},
            signature=_signature("bf16"),
            aligned=_ALIGNED,
            shows="the widest fused row: 32 values per thread, still no spills",
        ),
        ArtifactBuild(
            build="v1-bf16-65536",
            dtype="bfloat16",
            shape={**_rc(2048, 65536), "version": "v1"},
            signature=_signature("bf16"),
            aligned=_ALIGNED,
            shows="not launched: a whole 65K row in one block of 16 warps, to "
            "see whether it stays on chip; the float32 row spills",
        ),
        ArtifactBuild(
            build="v1-bf16-65536-32-warps",
            dtype="bfloat16",
            shape={**_rc(2048, 65536), "version": "v1", "warps": 32},
            signature=_signature("bf16"),
            aligned=_ALIGNED,
            shows="not launched: the same row over 32 warps, the most a block "
            "may have; 64 registers a thread, and still spills",
        ),
        ArtifactBuild(
            build="v2-bf16-4096",
            dtype="bfloat16",
            shape={**_rc(2048, 65536), "version": "v2"},
            signature=_signature("bf16"),
            aligned=_ALIGNED,
            shows="online: two loops over 4096-wide chunks, 128-bit loads",
        ),
        ArtifactBuild(
            build="v3-fp32-4096",
            dtype="float32",
            shape=_rc(32768, 4096),
            signature={"rows": "i32", **_signature("fp32")},
            aligned=_ALIGNED,
            shows="fused and persistent: a pipelined loop over rows",
        ),
        ArtifactBuild(
            build="v3-bf16-4096",
            dtype="bfloat16",
            shape=_rc(32768, 4096),
            signature={"rows": "i32", **_signature("bf16")},
            aligned=_ALIGNED,
            shows="fused and persistent, bf16 rows",
        ),
        ArtifactBuild(
            build="v4-bf16-4096",
            dtype="bfloat16",
            shape=_rc(2048, 65536),
            signature=_signature("bf16"),
            aligned=_ALIGNED,
            shows="online with one exponential per element in the first pass",
        ),
        ArtifactBuild(
            build="backward-bf16-4096",
            dtype="bfloat16",
            shape={**_rc(32768, 4096), "version": "backward"},
            signature={
                "y_ptr": "*bf16",
                "dy_ptr": "*bf16",
                "dx_ptr": "*bf16",
                "cols": "i32",
                "row_stride": "i32",
            },
            aligned=("y_ptr", "dy_ptr", "dx_ptr", "cols", "row_stride"),
            shows="the backward pass: two 128-bit loads per element pair (y "
            "and dy), one reduction, one 128-bit store; no exponential",
        ),
    ),
    grid_probe={"rows": 3_000_000, "cols": 3},  # one program per row
)
