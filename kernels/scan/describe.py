"""What the tools need to know about scan (see kernels/descriptor.py):
the error bound, the benchmark shapes, the goals and the artifact builds.
The kernels themselves are in ``versions.py``."""

import torch

from kernels.bounds import EPS32, eps
from kernels.descriptor import ArtifactBuild, Descriptor, Goal, Target
from kernels.scan.versions import (
    bytes_moved,
    cumsum,
    cumsum_ref,
    flops,
    launch_config,
)


def operands(numel: int) -> list[tuple[int]]:
    """One flat input of ``numel`` elements."""
    return [(numel,)]


def error_bound(inputs, truth, dtype, shape):
    """Two ulps of the output dtype for the final rounding, plus two float32
    ulps of the running sum of magnitudes: the float32 carries add the
    prefix in a different order than the float64 reference."""
    (x,) = inputs
    return 2 * eps(dtype) * truth.abs() + 2 * EPS32 * torch.cumsum(x.abs(), 0)


# Version 1's builds: passes 1 and 3 both launch.
_SEVERAL_BLOCKS = {"numel": 1 << 20, "version": 1}
_WHOLE_BLOCKS = {"numel": 1 << 20}  # version 2: the main launch only
_ODD = {"numel": (1 << 20) + 3}  # version 2: main and tail launches


def _single_pass(dtype: str) -> dict[str, str]:
    return {
        "x_ptr": f"*{dtype}",
        "out_ptr": f"*{dtype}",
        "state_ptr": "*i64",
        "ticket_ptr": "*i32",
        "n_elements": "i32",
    }


_POINTERS = ("x_ptr", "out_ptr", "state_ptr", "ticket_ptr")


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
    operands=operands,
    count_bytes=bytes_moved,
    count_flops=flops,
    # A shape may name an older version ("version": 1): artifact builds.
    configure=launch_config,
    error_bound=error_bound,
    shape_format="{numel}",
    eager_is="torch.cumsum (the library op)",
    # A float32 scan: bfloat16 prefix sums of 2**28 values keep no digits.
    dtype_cuda="float32",
    goals=(
        Goal(
            regime="1-D, HBM-bound sizes",
            # Issue 19: single-pass look-back moves 2N, so at least 0.85 of
            # torch.cumsum and 0.90 of the copy probe (reads N, writes N).
            must=(Target("R", 0.85), Target("F_bw", 0.90)),
            stretch=(Target("R", 1.0),),
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
        ArtifactBuild(
            build="single-pass-fp32",
            dtype="float32",
            shape=_WHOLE_BLOCKS,
            signature=_single_pass("fp32"),
            aligned=(*_POINTERS, "n_elements"),
            shows="version 2's main launch: a ticket from one atomic add, "
            "unmasked 128-bit loads and stores, 64-bit atomic exchanges to "
            "publish, 64-bit atomic reads in the look-back",
            launch=0,
        ),
        ArtifactBuild(
            build="single-pass-tail-fp32",
            dtype="float32",
            shape=_ODD,
            signature=_single_pass("fp32"),
            aligned=_POINTERS,
            shows="version 2's tail launch: one masked block, 32-bit accesses",
            launch=1,
        ),
        ArtifactBuild(
            build="single-pass-bf16",
            dtype="bfloat16",
            shape=_WHOLE_BLOCKS,
            signature=_single_pass("bf16"),
            aligned=(*_POINTERS, "n_elements"),
            shows="version 2, bf16 input: 128-bit loads of 8 elements",
            launch=0,
        ),
        ArtifactBuild(
            build="windowed-look-back-fp32",
            dtype="float32",
            shape={**_WHOLE_BLOCKS, "version": 3},
            signature={**_single_pass("fp32"), "carry_ptr": "*i32"},
            aligned=(*_POINTERS, "carry_ptr", "n_elements"),
            shows="version 3's main launch: the look-back loop reads 32 "
            "predecessors per trip with plain volatile 64-bit loads and "
            "reduces them with warp shuffles; no barrier and no atomic inside "
            "the loop, one broadcast of the carry after it",
            launch=0,
        ),
    ),
    grid_probe={"numel": (1 << 31) + 5},  # more than 2**31 elements
)
