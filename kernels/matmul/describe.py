"""What the tools need to know about matmul (see kernels/descriptor.py):
the error bound, the benchmark shapes, the goals and the artifact builds.
The kernels themselves are in ``versions.py``."""

import math

import torch

from kernels.bounds import EPS32, eps
from kernels.descriptor import ArtifactBuild, Descriptor, Goal, Target
from kernels.matmul.versions import (
    bytes_moved,
    flops,
    launch_config,
    matmul,
    matmul_ref,
    v2_config,
    v3_config,
)


def error_bound(inputs, truth, dtype, shape):
    """Two ulps of the output dtype for the final rounding, plus float32
    rounding of a K-term sum taken in a different order than the float64
    reference: about sqrt(K) ulps of the sum of magnitudes |a| @ |b|."""
    a, b = inputs
    spread = a.abs() @ b.abs()
    K = shape["K"]
    return 2 * eps(dtype) * truth.abs() + 2 * math.sqrt(K) * EPS32 * spread


def _signature(dtype: str) -> dict[str, str]:
    return {
        "a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": f"*{dtype}",
        "M": "i32", "N": "i32", "K": "i32",
        "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32",
    }  # fmt: skip


# Row-major operands: the JIT makes the unit strides constants. Artifacts are
# compiled for the GPU, never for the interpreter.
_FIXED = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "INTERPRETED": False}
_ALIGNED = (
    "a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"
)  # fmt: skip
# Version 1's builds: the config depends on the dtype only.
_ANY = {"M": 8192, "N": 8192, "K": 8192, "version": 1}


def operands(M: int, N: int, K: int) -> list[tuple[int, int]]:
    """a (M, K) and b (K, N)."""
    return [(M, K), (K, N)]


def _mnk(M: int, N: int, K: int) -> dict[str, int]:
    return {"M": M, "N": N, "K": K}


def _build(*, build: str, dtype: str, aligned: bool, shows: str) -> ArtifactBuild:
    """A version 1 build: row-major operands, the dtype's config."""
    name = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}[dtype]
    return ArtifactBuild(
        build=build,
        dtype=name,
        shape=_ANY,
        signature=_signature(dtype),
        aligned=_ALIGNED if aligned else (),
        shows=shows,
        fixed=_FIXED,
    )


#: Hopper's tiles are for these targets; sm_120a's builds take their own
#: (kernels/devices.py: 99 KiB a block there), named with SM120.
_BIG_SHARED = ("sm_90a", "sm_100a")
SM120 = "-sm120"


def _v2_build(*, build: str, dtype: str, shape: dict, shows: str):
    """A version 2 build: the descriptors' types carry the tile shapes. A
    shape with a ``target`` is compiled for that target only."""
    target = shape.get("target")
    config = v2_config(shape["M"], shape["N"], target)
    bm, bn, bk = config.BLOCK_M, config.BLOCK_N, config.BLOCK_K
    return ArtifactBuild(
        build=build,
        dtype={"bf16": "bfloat16", "fp16": "float16"}[dtype],
        shape=shape,
        signature={
            "a_desc": f"tensordesc<{dtype}[{bm}, {bk}]>",
            "b_desc": f"tensordesc<{dtype}[{bk}, {bn}]>",
            "c_desc": f"tensordesc<{dtype}[{bm}, {bn}]>",
            "M": "i32",
            "N": "i32",
            "K": "i32",
        },  # fmt: skip
        aligned=("M", "N", "K"),
        shows=shows,
        fixed={"INTERPRETED": False},
        targets=(target,) if target else _BIG_SHARED,
    )


def _v3_build(*, build: str, dtype: str, shape: dict, shows: str):
    """A version 3 build: C's descriptor carries half a tile's width; float8
    operands ("fp8e4nv", Triton's name for e4m3) give a bfloat16 C."""
    names = {"bf16": "bfloat16", "fp16": "float16", "fp8e4nv": "float8_e4m3fn"}
    target = shape.get("target")
    config = v3_config(shape["M"], shape["N"], target, getattr(torch, names[dtype]))
    bm, bn, bk = config.BLOCK_M, config.BLOCK_N, config.BLOCK_K
    out = "bf16" if dtype == "fp8e4nv" else dtype
    return ArtifactBuild(
        build=build,
        dtype=names[dtype],
        shape={**shape, "version": 3},
        signature={
            "a_desc": f"tensordesc<{dtype}[{bm}, {bk}]>",
            "b_desc": f"tensordesc<{dtype}[{bk}, {bn}]>",
            "c_desc": f"tensordesc<{out}[{bm}, {bn // 2}]>",
            "M": "i32",
            "N": "i32",
            "K": "i32",
            "scale": "fp32",
        },
        aligned=("M", "N", "K"),
        shows=shows,
        fixed={"INTERPRETED": False},
        targets=(target,) if target else _BIG_SHARED,
    )


def _sm120(shape: dict[str, int]) -> dict:
    return {**shape, "target": "sm_120a"}


DESCRIPTOR = Descriptor(
    name="matmul",
    title="matmul",
    launcher=matmul,
    reference=matmul_ref,
    metric="flops",
    shapes={
        "tiny": (_mnk(65, 47, 33),),
        "quick": (_mnk(8192, 8192, 8192),),
        "full": (
            _mnk(1024, 1024, 1024),
            _mnk(4096, 4096, 4096),
            _mnk(8192, 8192, 8192),
            _mnk(8191, 8193, 4095),
        ),
    },
    operands=operands,
    count_bytes=bytes_moved,
    count_flops=flops,
    # A shape may name an older version ("version": 1): artifact builds.
    configure=launch_config,
    error_bound=error_bound,
    shape_format="{M}×{N}×{K}",
    eager_is="a @ b, i.e. torch.matmul (the library op)",
    goals=(
        Goal(
            regime="bf16",
            # Issue 19 raised the 8192-cubed goal to 0.90 of cuBLAS.
            must=(
                Target(
                    "R",
                    0.90,
                    shape=_mnk(8192, 8192, 8192),
                    note="against cuBLAS (torch.matmul)",
                ),
                Target("R", 0.80, shape=_mnk(4096, 4096, 4096)),
                Target("F_flop", 0.70),
            ),
            stretch=(Target("R", 1.0, shape=_mnk(8192, 8192, 8192)),),
        ),
    ),
    artifact_builds=(
        _build(
            build="bf16-aligned",
            dtype="bf16",
            aligned=True,
            shows="two warpgroups issue wgmma m64n256k16 (HGMMA), four per 64-deep K "
            "step, fed by 16-byte cp.async copies in a 3-stage pipeline",
        ),
        _build(
            build="fp16-aligned",
            dtype="fp16",
            aligned=True,
            shows="fp16: the same wgmma shape",
        ),
        _build(
            build="fp32-aligned",
            dtype="fp32",
            aligned=True,
            shows="IEEE float32 products: FFMA on the CUDA cores, no tensor cores",
        ),
        _build(
            build="bf16-unaligned",
            dtype="bf16",
            aligned=False,
            shows="no 16-byte hints: one 2-byte load per element, no cp.async pipeline",
        ),
        _v2_build(
            build="v2-bf16-tma-persistent",
            dtype="bf16",
            shape=_mnk(8192, 8192, 8192),
            shows="version 2 at 8192 cubed: a persistent tile loop; TMA bulk tensor "
            "copies (UTMALDG) feed wgmma m64n256k16 (HGMMA), a TMA store "
            "(UTMASTG) writes C",
        ),
        _v2_build(
            build="v2-fp16-tma-persistent",
            dtype="fp16",
            shape=_mnk(8192, 8192, 8192),
            shows="version 2, fp16: the same copies and wgmma shape",
        ),
        _v2_build(
            build="v2-bf16-tma-small",
            dtype="bf16",
            shape=_mnk(1024, 1024, 1024),
            shows="version 2's smaller tiles (128 x 128, four stages) for outputs "
            "under 4096 x 4096: wgmma m64n128k16",
        ),
        _v3_build(
            build="v3-bf16-tma-split-epilogue",
            dtype="bf16",
            shape=_mnk(8192, 8192, 8192),
            shows="version 3 at 8192 cubed: C leaves in two 128 x 128 TMA stores, "
            "so half the staging buffer frees room for a fourth stage",
        ),
        _v3_build(
            build="v3-fp8-e4m3-tma-split-epilogue",
            dtype="fp8e4nv",
            shape=_mnk(8192, 8192, 8192),
            shows="version 3 on float8 e4m3 operands: 8-bit wgmma (QGMMA, 32 deep "
            "per instruction) accumulating in float32, C scaled and rounded to "
            "bfloat16 in the epilogue",
        ),
        _v2_build(
            build="v2-bf16-tma-persistent" + SM120,
            dtype="bf16",
            shape=_sm120(_mnk(8192, 8192, 8192)),
            shows="version 2 on an RTX 50-class part: 128 x 128 tiles, three "
            "stages, inside the 99 KiB a block gets there; mma.sync (HMMA) "
            "products fed by TMA copies",
        ),
        _v2_build(
            build="v2-fp16-tma-persistent" + SM120,
            dtype="fp16",
            shape=_sm120(_mnk(8192, 8192, 8192)),
            shows="version 2, fp16, RTX 50-class tiles",
        ),
        _v2_build(
            build="v2-bf16-tma-small" + SM120,
            dtype="bf16",
            shape=_sm120(_mnk(1024, 1024, 1024)),
            shows="version 2 at 1024 cubed on an RTX 50-class part: the same "
            "128 x 128 tiles as at every size there",
        ),
        _v3_build(
            build="v3-bf16-tma-split-epilogue" + SM120,
            dtype="bf16",
            shape=_sm120(_mnk(8192, 8192, 8192)),
            shows="version 3 on an RTX 50-class part: version 2's consumer "
            "tiles with C stored in two halves",
        ),
        _v3_build(
            build="v3-fp8-e4m3-tma-split-epilogue" + SM120,
            dtype="fp8e4nv",
            shape=_sm120(_mnk(8192, 8192, 8192)),
            shows="version 3 on float8 e4m3 operands, RTX 50-class part: "
            "128 x 256 tiles of one-byte elements, three stages (QMMA)",
        ),
    ),  # fmt: skip
    grid_probe={"M": 3, "N": 1 << 20, "K": 5},  # one axis of output tiles
)
