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

from kernels.bounds import EPS32, eps
from kernels.descriptor import ArtifactBuild, Descriptor, Goal, Launch, Target
from kernels.inputs import nonzero_inputs

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
BLOCK_SIZE = 4096
NUM_WARPS = 8


def launch_config(
    dtype: torch.dtype, numel: int, *, block_size: int = BLOCK_SIZE
) -> list[Launch]:
    """Every stage launches the same kernel with the same tile, whatever the
    dtype and size (an empty tensor still launches once, to write the 0)."""
    return [
        Launch("reduce_sum_v1_kernel", {"BLOCK_SIZE": block_size}, num_warps=NUM_WARPS)
    ]


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
    (launch,) = launch_config(x.dtype, values.numel(), block_size=block_size)
    while True:
        n_blocks = max(1, triton.cdiv(values.numel(), block_size))
        # Partials stay float32; only the final value is rounded to x.dtype.
        out_dtype = torch.float32 if n_blocks > 1 else x.dtype
        out = torch.empty(n_blocks, dtype=out_dtype, device=x.device)
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


# --------------------------------------------------------------------------
# What the tools need to know (see kernels/descriptor.py)
# --------------------------------------------------------------------------


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
_ANY = {"numel": 1 << 20}  # the config does not depend on the size


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
    make_inputs=lambda shape, dtype, device, seed: nonzero_inputs(
        [(shape["numel"],)], dtype, device, seed
    ),
    bytes_moved=lambda shape, itemsize: bytes_moved(shape["numel"], itemsize),
    flops=lambda shape: flops(shape["numel"]),
    launch_config=lambda dtype, shape: launch_config(dtype, shape["numel"]),
    error_bound=error_bound,
    shape_text=lambda shape: f"{shape['numel']}",
    eager_is="torch.sum (the library op)",
    goals=(
        Goal(
            regime="HBM-bound sizes",
            must=(Target("R", 0.90), Target("F_bw", 0.85)),
            stretch=(Target("R", 1.0),),
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
    ),
    grid_probe={"numel": (1 << 31) + 5},  # more than 2**31 elements
)
