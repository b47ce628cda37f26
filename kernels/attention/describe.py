"""What the tools need to know about attention (see kernels/descriptor.py):
the error bound, the baselines, the benchmark shapes, the goals and the
artifact builds. The kernels themselves are in ``versions.py``."""

import math

import torch
import triton

from kernels.attention.versions import (
    LATEST,
    attention,
    attention_ref,
    bytes_moved,
    config_v3_for,
    flops,
    launch_config,
)
from kernels.bounds import EPS32, eps
from kernels.descriptor import ArtifactBuild, Descriptor, Goal, Target


def error_bound(inputs, truth, dtype, shape):
    """Two ulps of the output dtype, plus the rounding of the probabilities
    and scores, plus float32 rounding of sums over up to S keys."""
    # Rounding the probabilities to the input dtype perturbs the weight of
    # each of the n keys a query sees by about one ulp, at random, so the
    # output moves by about eps * rms(v) / sqrt(n). Eager attention also
    # rounds the scores, an error that grows with their size (rms q * rms k)
    # and has a long tail: on bf16 CPU runs at S = 4096 its largest error
    # reached about half of this bound, while dropping one key of the 4096
    # exceeded it twice over.
    q, k, v = inputs
    v_rms = float(v.pow(2).mean().sqrt())
    score_rms = float(q.pow(2).mean().sqrt() * k.pow(2).mean().sqrt())
    S = shape["S"]
    seen = torch.full((S, 1), float(S), dtype=torch.float64, device=truth.device)
    if shape["causal"]:  # query i sees keys 0..i
        seen = torch.arange(1, S + 1, dtype=torch.float64, device=truth.device)
        seen = seen.view(S, 1)
    rounding = 96 * (1 + score_rms) * eps(dtype) / seen.sqrt()
    spread = rounding + 4 * math.sqrt(S) * EPS32
    return 2 * eps(dtype) * truth.abs() + spread * v_rms


def sdpa(q, k, v, causal=False):
    """PyTorch's fused attention, a baseline the benchmark times too."""
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)


def _bhsd(B: int, H: int, S: int, D: int, causal: bool) -> dict:
    return {"B": B, "H": H, "S": S, "D": D, "causal": causal}


def operands(B: int, H: int, S: int, D: int) -> list[tuple[int, ...]]:
    """q, k and v, each (B, H, S, D)."""
    return [(B, H, S, D)] * 3


def _shape_text(shape) -> str:
    text = f"B{shape['B']} H{shape['H']} S{shape['S']} D{shape['D']}"
    return text + (" causal" if shape["causal"] else "")


def _signature(dtype: str) -> dict[str, str]:
    pointers = ("q_ptr", "k_ptr", "v_ptr", "out_ptr")
    return {**{p: f"*{dtype}" for p in pointers}, "S": "i32", "qk_scale": "fp32"}


def _build(
    *, build: str, dtype: str, D: int, causal: bool, shows: str, version: int = 1
):
    """A version 1 or 2 build at B4 H16 S4096 (the grid does not change the code)."""
    name = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}[dtype]
    shape = _bhsd(4, 16, 4096, D, causal)
    if version != LATEST:
        shape["version"] = version
    return ArtifactBuild(
        build=build,
        dtype=name,
        shape=shape,
        signature=_signature(dtype),
        aligned=("q_ptr", "k_ptr", "v_ptr", "out_ptr", "S"),
        shows=shows,
        fixed={"INTERPRETED": False},  # compiled for the GPU
    )


#: Versions 3 and 4's Hopper tiles are built for these targets; sm_120a
#: builds its own (``-sm120``: kernels/attention/versions.py, config_v3_for).
_BIG_SHARED = ("sm_90a", "sm_100a")
SM120 = "sm_120a"


def _v3_build(
    *,
    build: str,
    dtype: str,
    D: int,
    causal: bool,
    shows: str,
    version: int = 3,
    warp_specialize: bool = False,
    target: str | None = None,
    targets: tuple[str, ...] = _BIG_SHARED,
):
    """A version 3 or 4 build: the descriptors' types carry the tile
    shapes; ``warp_specialize`` is passed to ``launch_config`` through the
    shape, as the launcher never asks for it. A ``target`` ("sm_120a")
    compiles that target's own tiles, for it alone; without one, Hopper's
    tiles, for ``targets``."""
    name = {"bf16": "bfloat16", "fp16": "float16"}[dtype]
    config = config_v3_for(getattr(torch, name), D, target)
    bd = max(16, triton.next_power_of_2(D))
    q_tile = f"tensordesc<{dtype}[1, {config.BLOCK_M}, {bd}]>"
    kv_tile = f"tensordesc<{dtype}[1, {config.BLOCK_N}, {bd}]>"
    return ArtifactBuild(
        build=build,
        dtype=name,
        shape={
            **_bhsd(4, 16, 4096, D, causal),
            **({"version": version} if version != LATEST else {}),
            **({"warp_specialize": True} if warp_specialize else {}),
            **({"target": target} if target else {}),
        },
        signature={
            "q_desc": q_tile,
            "k_desc": kv_tile,
            "v_desc": kv_tile,
            "o_desc": q_tile,
            "S": "i32",
            "qk_scale": "fp32",
        },
        aligned=("S",),
        shows=shows,
        fixed={"INTERPRETED": False},
        targets=(target,) if target else targets,
    )


DESCRIPTOR = Descriptor(
    name="attention",
    title="attention forward",
    launcher=attention,
    reference=attention_ref,
    metric="flops",
    shapes={
        "tiny": (_bhsd(1, 2, 65, 32, True),),
        "quick": (_bhsd(4, 16, 4096, 128, False),),
        "full": (
            _bhsd(4, 16, 1024, 128, False),
            _bhsd(4, 16, 4096, 128, False),
            _bhsd(4, 16, 4096, 128, True),
            _bhsd(1, 16, 8192, 128, False),
        ),
    },
    operands=operands,
    count_bytes=bytes_moved,
    count_flops=flops,
    # A shape may name an older version ("version": 1): artifact builds.
    configure=launch_config,
    error_bound=error_bound,
    shape_format=_shape_text,
    call_keys=("causal",),
    baselines={"sdpa": sdpa},
    eager_is="matmul, softmax, matmul with the S×S scores in memory",
    r_baselines=("eager", "compile", "sdpa"),
    goals=(
        Goal(
            regime="D = 128, S ≥ 4096",
            # Issue 19 raised these: at least 1.2x PyTorch's flash backend
            # (SDPA, the fastest baseline at bf16) and 0.60 of the dense peak.
            must=(
                Target(
                    "R",
                    1.2,
                    note="against the best of eager, compile and PyTorch's SDPA "
                    "(its flash backend)",
                ),
                Target("F_flop", 0.60, note="of the measured dense bf16 matmul"),
            ),
            stretch=(Target("R", 1.4),),
        ),
    ),
    artifact_builds=(
        _build(
            build="bf16-d128",
            dtype="bf16",
            D=128,
            causal=False,
            shows="S = QK^T and O += PV both on wgmma; exp2 on the MUFU unit; "
            "no spills",
        ),
        _build(
            build="bf16-d128-causal",
            dtype="bf16",
            D=128,
            causal=True,
            shows="causal: the masked diagonal step adds selects, still no spills",
        ),
        _build(
            build="fp16-d64-causal",
            dtype="fp16",
            D=64,
            causal=True,
            shows="D = 64: 4 warps",
        ),
        _build(
            build="bf16-d80",
            dtype="bf16",
            D=80,
            causal=False,
            shows="D = 80 padded to 128 inside the kernel, masked loads",
        ),
        _build(
            build="fp32-d128",
            dtype="fp32",
            D=128,
            causal=False,
            shows="IEEE float32 on FMA units; 32 x 16 tiles keep it from spilling",
        ),
        _build(
            build="v2-bf16-d128",
            dtype="bf16",
            D=128,
            causal=False,
            shows="version 2: 128-wide key blocks (wgmma m64n128k16 for both "
            "products), the scale folded into one FFMA before exp2",
            version=2,
        ),
        _build(
            build="v2-bf16-d128-causal",
            dtype="bf16",
            D=128,
            causal=True,
            shows="version 2, causal: heavy query tiles first",
            version=2,
        ),
        _build(
            build="v2-fp16-d64-causal",
            dtype="fp16",
            D=64,
            causal=True,
            shows="version 2, D = 64: 128-wide key blocks on 8 warps",
            version=2,
        ),
        _v3_build(
            build="v3-bf16-d128-tma",
            dtype="bf16",
            D=128,
            causal=False,
            shows="version 3: q, k and v tiles arrive by TMA bulk tensor copies "
            "(UTMALDG), the output leaves by one (UTMASTG); version 2's math",
        ),
        _v3_build(
            build="v3-bf16-d128-causal-tma",
            dtype="bf16",
            D=128,
            causal=True,
            shows="version 3, causal: the same copies, heavy query tiles first",
        ),
        _v3_build(
            build="v3-fp16-d64-causal-tma",
            dtype="fp16",
            D=64,
            causal=True,
            shows="version 3, D = 64: 64-wide descriptor tiles, three stages",
        ),
        _v3_build(
            build="v4-bf16-d128-overlap",
            dtype="bf16",
            D=128,
            causal=False,
            version=4,
            shows="version 4: block j + 1's QK^T is issued before block j's "
            "softmax in the source; the loop's warpgroup waits show whether "
            "the compiler keeps it in flight across the exponentials",
        ),
        _v3_build(
            build="v4-bf16-d128-warp-specialized",
            dtype="bf16",
            D=128,
            causal=False,
            version=4,
            warp_specialize=True,
            # Not sm_120a: Triton 3.8's automatic warp specialisation stops
            # there with "InsertAref.cpp:448: createArefGet: Assertion
            # `consumers.size() > 0' failed" (pass NVWSInsertAref).
            targets=_BIG_SHARED,
            shows="version 4 with tl.range(warp_specialize=True): on sm_100a "
            "the loop is split into partitions that trade registers "
            "(setmaxnreg); on sm_90a the flag changes nothing",
        ),
        # Consumer Blackwell: the tiles the launcher picks there.
        _v3_build(
            build="v3-bf16-d128-tma-sm120",
            dtype="bf16",
            D=128,
            causal=False,
            target=SM120,
            shows="version 3 on sm_120a: 32-key blocks, so the scores and the "
            "output accumulator stay in registers on mma.sync (HMMA); no spills",
        ),
        _v3_build(
            build="v3-bf16-d128-causal-tma-sm120",
            dtype="bf16",
            D=128,
            causal=True,
            target=SM120,
            shows="version 3, causal, on sm_120a: the same 32-key blocks",
        ),
        _v3_build(
            build="v3-fp16-d64-causal-tma-sm120",
            dtype="fp16",
            D=64,
            causal=True,
            target=SM120,
            shows="version 3, D = 64, on sm_120a: 64-key blocks",
        ),
        _v3_build(
            build="v4-bf16-d128-overlap-sm120",
            dtype="bf16",
            D=128,
            causal=False,
            version=4,
            target=SM120,
            shows="version 4 on sm_120a: version 3's 32-key blocks",
        ),
        # What the launcher no longer picks there, kept as the record of why:
        # Hopper's 128 x 128 tiles compiled for sm_120a.
        _v3_build(
            build="v3-bf16-d128-tma-hopper-tiles",
            dtype="bf16",
            D=128,
            causal=False,
            targets=(SM120,),
            shows="version 3 with Hopper's 128 x 128 tiles on sm_120a, which the "
            "launcher does not pick there: the float32 scores and accumulator "
            "overflow a thread's registers and spill",
        ),
    ),  # fmt: skip
    grid_probe={
        "B": 2048,
        "H": 32,
        "S": 1,
        "D": 64,
        "causal": False,
    },  # B * H = 65536 heads on one grid axis
)
