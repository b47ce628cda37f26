"""Residual add + ReLU: ``out = relu(x + residual)`` in one fused pass.

It stays one file, not a ``kernels/<op>/`` package like the longer kernels,
because it is also the evaluator's own candidate (``scripts/qualify/``): a
candidate is one file by design, and the gate allows it no project imports
beyond ``kernels.bounds``, ``kernels.descriptor`` and ``kernels.inputs``.

Versions
    ``residual_add_relu_v1_kernel``: one program per ``BLOCK_SIZE`` contiguous
    elements of the flattened tensors; the sum is formed in float32 and rounded
    once to the output dtype. Launched alone by ``residual_add_relu_v1``. On a
    length that is not a multiple of 16 bytes the mask may cut any group of
    elements, so the compiler falls back to one access per element.

    Version 2 (``residual_add_relu``, the launcher): a main launch of
    ``residual_add_relu_v2_kernel`` covers the whole blocks with no mask, so
    its loads and stores stay 128-bit whatever the length; a tail launch of
    one v1 program, on views that start right after the main part (still
    16-byte aligned), takes the last partial block. Same values, same bytes.

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

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
BLOCK_SIZE = 1024
NUM_WARPS = 4


LATEST = 2


def launch_config(
    dtype: torch.dtype, rows: int, cols: int = 1, *, version: int = LATEST
) -> list[Launch]:
    """Version 1: one launch, the same tile for every dtype and size.
    Version 2: the unmasked main launch when there is a whole block, then
    the masked v1 tail when a partial block is left; the same tile. The
    kernels see flat memory: only ``rows * cols`` matters."""
    numel = rows * cols
    tile = {"BLOCK_SIZE": BLOCK_SIZE}
    v1 = Launch("residual_add_relu_v1_kernel", tile, num_warps=NUM_WARPS)
    if version == 1:
        return [v1]
    if version != 2:
        raise ValueError(f"version must be 1 or 2, got {version}")
    main = Launch("residual_add_relu_v2_kernel", tile, num_warps=NUM_WARPS)
    return [main] * (numel >= BLOCK_SIZE) + [v1] * (numel % BLOCK_SIZE > 0)


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


# --8<-- [start:kernel-v2]
@triton.jit
def residual_add_relu_v2_kernel(x_ptr, residual_ptr, out_ptr, BLOCK_SIZE: tl.constexpr):
    # Whole blocks only: no mask, so no group of elements is ever cut and
    # every access can be 16 bytes wide whatever the tensor's length.
    pid = tl.program_id(axis=0)
    offs = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs).to(tl.float32)
    residual = tl.load(residual_ptr + offs).to(tl.float32)
    total = x + residual  # float32, rounded once on the store
    out = tl.where(total < 0, 0.0, total)  # NaN passes, as in torch.relu
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty))
    # --8<-- [end:kernel-v2]


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
    """Return a new tensor equal to ``relu(x + residual)`` (version 2: an
    unmasked main launch over whole blocks, then a one-program tail)."""
    validate(x, residual)
    x_flat = x.contiguous().reshape(-1)
    residual_flat = residual.contiguous().reshape(-1)
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    out_flat = out.reshape(-1)  # a view: writes land in out
    n_elements = out.numel()
    whole = n_elements // BLOCK_SIZE
    start = whole * BLOCK_SIZE  # a multiple of 16 bytes for every dtype
    for launch in launch_config(x.dtype, n_elements):
        if launch.kernel == "residual_add_relu_v2_kernel":
            residual_add_relu_v2_kernel[(whole,)](
                x_flat, residual_flat, out_flat,
                **launch.constexprs, **launch.options(),
            )  # fmt: skip
        else:  # the tail: one masked program on views past the main part
            residual_add_relu_v1_kernel[(1,)](
                x_flat[start:], residual_flat[start:], out_flat[start:],
                n_elements - start, **launch.constexprs, **launch.options(),
            )  # fmt: skip
    return out
    # --8<-- [end:launcher]


# --8<-- [start:launcher-v1]
def residual_add_relu_v1(x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    """Version 1: one masked launch over every element."""
    validate(x, residual)
    # The kernel walks flat memory, so it needs dense row-major inputs.
    x_flat = x.contiguous()
    residual_flat = residual.contiguous()
    out = torch.empty_like(x_flat)  # contiguous, same shape, dtype, device
    n_elements = out.numel()
    if n_elements == 0:
        return out
    (launch,) = launch_config(x.dtype, n_elements, version=1)
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
    # --8<-- [end:launcher-v1]


def bytes_moved(rows: int, cols: int, itemsize: int) -> int:
    """Read x and residual once, write the output once."""
    return 3 * rows * cols * itemsize


def flops(rows: int, cols: int) -> int:
    """One add per element; the ReLU is a select, not an arithmetic op."""
    return rows * cols


def operands(rows: int, cols: int) -> list[tuple[int, int]]:
    """x and residual, both (rows, cols)."""
    return [(rows, cols)] * 2


def _signature(dtype: str) -> dict[str, str]:
    return {
        "x_ptr": f"*{dtype}",
        "residual_ptr": f"*{dtype}",
        "out_ptr": f"*{dtype}",
        "n_elements": "i32",
    }


_ALIGNED = ("x_ptr", "residual_ptr", "out_ptr", "n_elements")
_POINTERS = ("x_ptr", "residual_ptr", "out_ptr")
# Version 1's builds: the config does not depend on the size.
_ANY = {"rows": 1024, "cols": 1024, "version": 1}
# Version 2 on an odd length: launch 0 is the main launch, 1 the tail.
_ODD = {"rows": 1025, "cols": 1023}


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
    operands=operands,
    count_bytes=bytes_moved,
    count_flops=flops,
    # A shape may name an older version ("version": 1): artifact builds.
    configure=launch_config,
    error_bound=bounds.elementwise,
    shape_format="{rows}×{cols}",
    eager_is="torch.relu(x + residual): two kernels",
    # relu(x + r) moves 3N elements; eager's two kernels about 5N.
    max_speedup={"eager": 5 / 3, "compile": 1.0},
    goals=(
        Goal(
            regime="HBM-bound sizes",
            # Issue 19: 0.90 of the copy probe (reads 2N, writes N).
            must=(
                Target("R", 0.95),
                Target("F_bw", 0.90),
                Target("speedup_vs_eager", 1.4),
            ),
            stretch=(Target("F_bw", 0.94),),
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
        ArtifactBuild(
            build="v2-main-fp32-odd-length",
            dtype="float32",
            shape=_ODD,
            signature={name: "*fp32" for name in _POINTERS},
            aligned=_POINTERS,
            shows="version 2's main launch on an odd length: whole blocks, no "
            "mask, 128-bit loads and stores",
            launch=0,
        ),
        ArtifactBuild(
            build="v2-tail-fp32-odd-length",
            dtype="float32",
            shape=_ODD,
            signature=_signature("fp32"),
            aligned=_POINTERS,
            shows="version 2's tail: one masked v1 program on aligned views, "
            "32-bit accesses for the last partial block only",
            launch=1,
        ),
        ArtifactBuild(
            build="v2-main-bf16-odd-length",
            dtype="bfloat16",
            shape=_ODD,
            signature={name: "*bf16" for name in _POINTERS},
            aligned=_POINTERS,
            shows="version 2, bf16: 128-bit accesses of 8 elements",
            launch=0,
        ),
    ),
    grid_probe={"rows": 1 << 16, "cols": 1 << 15},  # 2**31 elements
)
