"""What the tools need to know about transpose (see kernels/descriptor.py):
the error bound, the benchmark shapes, the goals and the artifact builds.
The kernels themselves are in ``versions.py``."""

from kernels import bounds
from kernels.descriptor import ArtifactBuild, Descriptor, Goal, Target
from kernels.transpose.versions import (
    bytes_moved,
    flops,
    launch_config,
    transpose,
    transpose_ref,
)


def operands(rows: int, cols: int) -> list[tuple[int, int]]:
    """One (rows, cols) input."""
    return [(rows, cols)]


_SIGNATURE = {
    "x_ptr": "*fp32",
    "out_ptr": "*fp32",
    "M": "i32",
    "N": "i32",
    "stride_xm": "i32",
}
_ALIGNED = ("x_ptr", "out_ptr", "M", "N", "stride_xm")
# A contiguous x has stride_xn == 1, which the JIT makes a constant.
_UNIT_STRIDE = {"stride_xn": 1}


def _rc(rows: int, cols: int) -> dict[str, int]:
    return {"rows": rows, "cols": cols}


DESCRIPTOR = Descriptor(
    name="transpose",
    title="transpose",
    launcher=transpose,
    reference=transpose_ref,
    metric="bandwidth",
    # H200: L2 is 50 MB; HBM-bound shapes keep the data at least 4x L2.
    shapes={
        "tiny": (_rc(67, 131),),
        "quick": (_rc(16384, 16384),),
        "full": (
            _rc(1024, 1024),
            _rc(16384, 16384),
            _rc(8192, 32768),
            _rc(16383, 8191),
        ),
    },
    operands=operands,
    count_bytes=bytes_moved,
    count_flops=flops,
    # A shape may name the version: the artifact builder compiles v1 too.
    configure=launch_config,
    error_bound=bounds.exact,
    shape_format="{rows}×{cols}",
    goals=(
        Goal(
            regime="HBM-bound sizes",
            # Issue 19: at least 0.95 of a contiguous copy (the copy probe).
            must=(Target("R", 0.95), Target("F_bw", 0.95, note="of a contiguous copy")),
            stretch=(Target("F_bw", 0.97, note="of a contiguous copy"),),
        ),
    ),
    artifact_builds=(
        ArtifactBuild(
            build="naive-fp32",
            dtype="float32",
            shape={**_rc(1024, 1024), "version": "v1"},
            signature=_SIGNATURE,
            aligned=_ALIGNED,
            shows="contiguous 128-bit loads, but one 32-bit store per element",
            fixed=_UNIT_STRIDE,
        ),
        ArtifactBuild(
            build="tiled-fp32",
            dtype="float32",
            shape=_rc(1024, 1024),
            signature=_SIGNATURE,
            aligned=_ALIGNED,
            shows="the tile is transposed through shared memory, so stores are "
            "128-bit too",
            fixed=_UNIT_STRIDE,
        ),
        ArtifactBuild(
            build="tiled-bf16",
            dtype="bfloat16",
            shape=_rc(1024, 1024),
            signature={**_SIGNATURE, "x_ptr": "*bf16", "out_ptr": "*bf16"},
            aligned=_ALIGNED,
            shows="2-byte elements: the transposed read from shared memory "
            "becomes ldmatrix with transpose",
            fixed=_UNIT_STRIDE,
        ),
        ArtifactBuild(
            build="grouped-fp32",
            dtype="float32",
            shape={**_rc(1024, 1024), "version": "v3"},
            signature=_SIGNATURE,
            aligned=_ALIGNED,
            shows="version 3: a 64 x 128 tile, twice version 2's shared memory, "
            "still 128-bit loads and stores; the grouped order is integer "
            "arithmetic on the program id",
            fixed=_UNIT_STRIDE,
        ),
        ArtifactBuild(
            build="grouped-bf16",
            dtype="bfloat16",
            shape={**_rc(1024, 1024), "version": "v3"},
            signature={**_SIGNATURE, "x_ptr": "*bf16", "out_ptr": "*bf16"},
            aligned=_ALIGNED,
            shows="version 3, 2-byte elements: the wider tile through shared "
            "memory and ldmatrix with transpose",
            fixed=_UNIT_STRIDE,
        ),
    ),
    grid_probe={"rows": 2, "cols": 4_200_000},  # N / 64 = 65625 column tiles
)
