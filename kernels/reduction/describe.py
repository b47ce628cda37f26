"""What the tools need to know about reduction (see kernels/descriptor.py):
the error bound, the benchmark shapes, the goals and the artifact builds.
The kernels themselves are in ``versions.py``."""

from kernels.bounds import EPS32, eps
from kernels.descriptor import ArtifactBuild, Descriptor, Goal, Target
from kernels.reduction.versions import (
    bytes_moved,
    flops,
    launch_config,
    reduce_sum,
    reduce_sum_ref,
)


def operands(numel: int) -> list[tuple[int]]:
    """One flat input of ``numel`` elements."""
    return [(numel,)]


def error_bound(inputs, truth, dtype, shape):
    """Two ulps of the output dtype for the final rounding, plus two float32
    ulps of the sum of magnitudes: the float32 partials are added in a
    different order than the float64 reference."""
    (x,) = inputs
    return 2 * eps(dtype) * truth.abs() + 2 * EPS32 * x.abs().sum()


def _signature(dtype: str) -> dict[str, str]:
    # The partials are float32 whatever the input, so with more than one
    # block (every benchmark size) stage one writes float32.
    return {"in_ptr": f"*{dtype}", "out_ptr": "*fp32", "n_elements": "i32"}


_ALIGNED = ("in_ptr", "out_ptr", "n_elements")
_ANY = {"numel": 1 << 20, "version": 1}  # version 1: any size, one config
_ODD = {"numel": (1 << 28) + 3}  # version 2: persistent stage, then v1


DESCRIPTOR = Descriptor(
    name="reduction",
    title="sum reduction",
    launcher=reduce_sum,
    reference=reduce_sum_ref,
    metric="bandwidth",
    stream="read",
    # H200: L2 is 50 MB; HBM-bound sizes keep the input at least 4x L2.
    shapes={
        "tiny": ({"numel": 9001},),
        "quick": ({"numel": 1 << 28},),
        "full": (
            {"numel": 1 << 20},
            {"numel": 1 << 24},
            {"numel": 1 << 28},
            {"numel": (1 << 29) + 3},
        ),
    },
    operands=operands,
    count_bytes=bytes_moved,
    count_flops=flops,
    # A shape may name an older version ("version": 1): artifact builds.
    configure=launch_config,
    error_bound=error_bound,
    shape_format="{numel}",
    eager_is="torch.sum (the library op)",
    goals=(
        Goal(
            regime="HBM-bound sizes",
            # Issue 19: 0.90 of the read-only probe (stream="read").
            must=(Target("R", 0.90), Target("F_bw", 0.90)),
            stretch=(Target("R", 1.0), Target("F_bw", 0.94)),
        ),
    ),
    artifact_builds=(
        ArtifactBuild(
            build="fp32-aligned",
            dtype="float32",
            shape=_ANY,
            signature=_signature("fp32"),
            aligned=_ALIGNED,
            shows="stage one: 128-bit loads, a tree of warp shuffles, then "
            "shared memory to combine the warps",
        ),
        ArtifactBuild(
            build="bf16-aligned",
            dtype="bfloat16",
            shape=_ANY,
            signature=_signature("bf16"),
            aligned=_ALIGNED,
            shows="bf16 input widened to float32 before the adds",
        ),
        ArtifactBuild(
            build="v2-persistent-fp32-odd-length",
            dtype="float32",
            shape=_ODD,
            signature={"in_ptr": "*fp32", "out_ptr": "*fp32", "n_blocks": "i32"},
            aligned=("in_ptr", "out_ptr"),
            shows="version 2's first stage on an odd length: a grid-stride loop "
            "of unmasked 128-bit loads, one partial per program",
            launch=0,
        ),
        ArtifactBuild(
            build="v2-persistent-bf16-odd-length",
            dtype="bfloat16",
            shape=_ODD,
            signature={"in_ptr": "*bf16", "out_ptr": "*fp32", "n_blocks": "i32"},
            aligned=("in_ptr", "out_ptr"),
            shows="version 2, bf16: 128-bit loads of 8 elements in the loop",
            launch=0,
        ),
        ArtifactBuild(
            build="v3-unrolled-bf16-odd-length",
            dtype="bfloat16",
            shape={**_ODD, "version": 3},
            signature={"in_ptr": "*bf16", "out_ptr": "*fp32", "n_pairs": "i32"},
            aligned=("in_ptr", "out_ptr"),
            shows="version 3, bf16: the grid-stride loop unrolled by two, twice "
            "the 128-bit loads per trip of version 2",
            launch=0,
        ),
    ),
    grid_probe={"numel": (1 << 31) + 5},  # more than 2**31 elements
)
