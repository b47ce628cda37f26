"""Residual add + ReLU: ``out = relu(x + residual)`` in one fused pass.

Versions
    ``residual_add_relu_v1_kernel``: one program per ``BLOCK_SIZE`` contiguous
    elements of the flattened tensors; the sum is formed in float32 and rounded
    once to the output dtype.

Contract
    float32, float16 and bfloat16; any shape (0-d and empty included); both
    inputs on the same device with the same shape and dtype. Non-contiguous
    inputs are copied to contiguous ones first (correct, at the price of one
    extra read and write of that input). The result is a new contiguous tensor;
    the inputs are never written. NaN propagates as in ``torch.relu`` and
    ``-inf`` becomes 0. Anything else raises ``TypeError`` or ``ValueError``
    naming the argument, before any launch.

Napkin math
    Each element of ``x`` and ``residual`` is read once and each output element
    is written once: ``3 * numel * itemsize`` bytes. One floating-point add per
    element; the ReLU is a compare-and-select, not counted as a FLOP.
"""

import torch
import triton
import triton.language as tl

from kernels import bounds
from kernels.descriptor import ArtifactBuild, Descriptor, Goal, Launch, Target
from kernels.inputs import nonzero_inputs

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
BLOCK_SIZE = 1024
NUM_WARPS = 4


def launch_config(dtype: torch.dtype, numel: int) -> list[Launch]:
    """One launch, the same tile for every dtype and size."""
    return [
        Launch(
            "residual_add_relu_v1_kernel",
            {"BLOCK_SIZE": BLOCK_SIZE},
            num_warps=NUM_WARPS,
        )
    ]


def residual_add_relu_ref(x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    """The answer every version must match: eager PyTorch, two kernels."""
    return torch.relu(x + residual)


# --8<-- [start:kernel]
@triton.jit
def residual_add_relu_v1_kernel(
    x_ptr, residual_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    # Per element: two loads and one store of itemsize bytes each.
    pid = tl.program_id(axis=0)
    # int64 offsets: a tensor past 2**31 elements must not wrap around.
    offs = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block may run past the end
    x = tl.load(x_ptr + offs, mask=mask)
    residual = tl.load(residual_ptr + offs, mask=mask)
    # Add in float32, round once on the store, as eager PyTorch does.
    total = x.to(tl.float32) + residual.to(tl.float32)
    # `total < 0` is False for NaN, so NaN passes through as in torch.relu.
    out = tl.where(total < 0, 0.0, total)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)
    # --8<-- [end:kernel]


# --8<-- [start:validate]
def validate(x: object, residual: object) -> None:
    """Raise TypeError or ValueError naming the bad argument; launch nothing."""
    for name, value in (("x", x), ("residual", residual)):
        if not isinstance(value, torch.Tensor):
            kind = type(value).__name__
            raise TypeError(f"{name} must be a torch.Tensor, got {kind}")
        if value.dtype not in SUPPORTED_DTYPES:
            allowed = "float32, float16 or bfloat16"
            raise TypeError(f"{name} has dtype {value.dtype}; use {allowed}")
    if residual.dtype != x.dtype:
        raise TypeError(
            f"residual has dtype {residual.dtype} but x has {x.dtype}; "
            "cast one of them first"
        )
    if residual.shape != x.shape:
        raise ValueError(
            f"residual has shape {tuple(residual.shape)} but x has "
            f"{tuple(x.shape)}; no broadcasting"
        )
    if residual.device != x.device:
        raise ValueError(
            f"residual is on {residual.device} but x is on {x.device}; "
            "move them to one device"
        )
    # --8<-- [end:validate]


# --8<-- [start:launcher]
def residual_add_relu(x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    """Return a new tensor equal to ``relu(x + residual)``."""
    validate(x, residual)
    # The kernel walks flat memory, so it needs dense row-major inputs.
    x_flat = x.contiguous()
    residual_flat = residual.contiguous()
    out = torch.empty_like(x_flat)  # contiguous, same shape, dtype, device
    n_elements = out.numel()
    if n_elements == 0:
        return out
    (launch,) = launch_config(x.dtype, n_elements)
    block = launch.constexprs["BLOCK_SIZE"]
    grid = (triton.cdiv(n_elements, block),)
    residual_add_relu_v1_kernel[grid](
        x_flat,
        residual_flat,
        out,
        n_elements,
        **launch.constexprs,
        **launch.options(),
    )
    return out
    # --8<-- [end:launcher]


def bytes_moved(numel: int, itemsize: int) -> int:
    """Read x and residual once, write the output once."""
    return 3 * numel * itemsize


def flops(numel: int) -> int:
    """One add per element; the ReLU is a select, not an arithmetic op."""
    return numel


def _rows_cols(shape) -> tuple[int, int]:
    return (shape["rows"], shape["cols"])


def _signature(dtype: str) -> dict[str, str]:
    return {
        "x_ptr": f"*{dtype}",
        "residual_ptr": f"*{dtype}",
        "out_ptr": f"*{dtype}",
        "n_elements": "i32",
    }


_ALIGNED = ("x_ptr", "residual_ptr", "out_ptr", "n_elements")
_ANY = {"rows": 1024, "cols": 1024}  # the config does not depend on the size


def _rc(rows: int, cols: int) -> dict[str, int]:
    return {"rows": rows, "cols": cols}


DESCRIPTOR = Descriptor(
    name="residual_add_relu",
    title="residual add + ReLU",
    launcher=residual_add_relu,
    reference=residual_add_relu_ref,
    metric="bandwidth",
    # H200: L2 is 50 MB, so HBM-bound shapes keep working sets at least
    # 4x L2; `full` adds an L2-sized and an awkward shape for contrast.
    shapes={
        "tiny": (_rc(3, 1031),),
        "quick": (_rc(32768, 4096),),
        "full": (
            _rc(1024, 1024),
            _rc(8192, 4096),
            _rc(32768, 4096),
            _rc(65536, 4096),
            _rc(50021, 4099),
        ),
        # The qualification project's comparison of eager, compiled and custom.
        "compare": (_rc(1024, 1024), _rc(8192, 4096), _rc(32768, 4096)),
    },
    cpu_shapes={"compare": (_rc(3, 1031), _rc(257, 1031), _rc(1024, 1024))},
    make_inputs=lambda shape, dtype, device, seed: nonzero_inputs(
        [_rows_cols(shape)] * 2, dtype, device, seed
    ),
    bytes_moved=lambda shape, itemsize: bytes_moved(
        shape["rows"] * shape["cols"], itemsize
    ),
    flops=lambda shape: flops(shape["rows"] * shape["cols"]),
    launch_config=lambda dtype, shape: launch_config(
        dtype, shape["rows"] * shape["cols"]
    ),
    error_bound=bounds.elementwise,
    shape_text=lambda shape: f"{shape['rows']}×{shape['cols']}",
    eager_is="torch.relu(x + residual): two kernels",
    # relu(x + r) moves 3N elements; eager's two kernels about 5N.
    max_speedup={"eager": 5 / 3, "compile": 1.0},
    goals=(
        Goal(
            regime="HBM-bound sizes",
            must=(
                Target("R", 0.95),
                Target("F_bw", 0.85),
                Target("speedup_vs_eager", 1.4),
            ),
            stretch=(Target("F_bw", 0.92),),
        ),
    ),
    artifact_builds=(
        ArtifactBuild(
            build="fp32-aligned",
            dtype="float32",
            shape=_ANY,
            signature=_signature("fp32"),
            aligned=_ALIGNED,
            shows="16-byte aligned pointers and a length divisible by 16: "
            "128-bit loads and stores",
        ),
        ArtifactBuild(
            build="fp32-unaligned",
            dtype="float32",
            shape=_ANY,
            signature=_signature("fp32"),
            aligned=(),
            shows="no alignment hint: one 32-bit load per element",
        ),
        ArtifactBuild(
            build="fp32-aligned-pointers-odd-length",
            dtype="float32",
            shape=_ANY,
            signature=_signature("fp32"),
            aligned=("x_ptr", "residual_ptr", "out_ptr"),
            shows="aligned pointers but a length not divisible by 16: the mask "
            "may cut any 4-element group, so the loads stay 32-bit",
        ),
        ArtifactBuild(
            build="bf16-aligned",
            dtype="bfloat16",
            shape=_ANY,
            signature=_signature("bf16"),
            aligned=_ALIGNED,
            shows="bf16, aligned: 128-bit loads of 8 elements",
        ),
    ),
    grid_probe={"rows": 1 << 16, "cols": 1 << 15},  # 2**31 elements
)
