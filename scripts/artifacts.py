"""Compile every kernel for Hopper (sm_90a) without a GPU and record what it is.

Usage (from the repository root)::

    python scripts/artifacts.py                # rebuild every kernel's artifact
    python scripts/artifacts.py scan matmul    # rebuild only these kernels
    python scripts/artifacts.py --out DIR ...  # write somewhere else

Evidence kind: a compiled artifact shows which instructions and resources the
code uses (load widths, matrix instructions, registers, spills). It says
nothing about speed.

The registry
============

``SPECS`` below lists one ``Spec`` per compilation ("build"). Every build of
kernel ``K`` lands in one committed file, ``results/artifacts/K.sm_90a.json``.
To add a kernel, append entries; nothing else in this file needs to change::

    Spec(
        kernel="matmul",             # module kernels/matmul.py
        build="bf16-aligned",        # unique within the kernel; tests use it
        function="matmul_v2_kernel", # the @triton.jit function in the module
        signature={                  # every parameter, in order, with its
            "a_ptr": "*bf16",        # Triton type: "*fp32", "*fp16", "*bf16",
            "M": "i32",              # "i32", "i64", "fp32", or "constexpr"
            "BLOCK_M": "constexpr",
        },
        constexprs={"BLOCK_M": 128}, # a value for every "constexpr" above
        aligned=("a_ptr", "M"),      # get the 16-divisibility hint (below)
        num_warps=8,
        num_stages=3,
        shows="what a lesson reads from this build",
    )

Specialization: when a kernel is launched, the JIT marks every pointer whose
address is a multiple of 16 bytes, and every integer argument that is a
multiple of 16, with ``tt.divisibility = 16``; an integer argument equal to 1
becomes the constant 1. ``aligned`` names the arguments that get the hint, so
a build can mirror "aligned tensors" (the usual case) or a misaligned launch.
To mirror an argument equal to 1, give it signature ``"constexpr"`` and value
1 in ``constexprs``.

The artifact file
=================

JSON with: ``schema``, ``kernel``, ``source`` (path) and ``source_sha256``
(of the kernel module file; tests fail when it no longer matches, meaning the
artifact must be rebuilt), ``target`` (``sm_90a``), ``triton_version``,
``ptxas_version``, and ``builds``: one object per Spec with its inputs
(function, signature, constexprs, aligned, num_warps, num_stages, shows) and
what came out: ``registers``, ``shared_bytes`` (the shared memory Triton
asks for at launch), ``static_shared_bytes`` (cuobjdump's SHARED figure for
the cubin), ``local_bytes``, ``stack_bytes``, ``spill_store_bytes``,
``spill_load_bytes`` (from ``ptxas -v`` on the same PTX), ``cubin_sha256``,
``ptx_opcodes`` and ``sass_opcodes`` (every instruction counted by its full
opcode, e.g. ``"LDG.E.128": 4``), and ``ptx_excerpt``/``sass_excerpt`` (the
memory, matrix and synchronization instructions, in program order, cut at
``EXCERPT_LINES``).

Line info is switched off while compiling (``TRITON_DISABLE_LINE_INFO=1``) so
the cubin does not embed this checkout's path; the instructions are the same.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTIFACT_DIR = ROOT / "results" / "artifacts"
TARGET_ARCH = "sm_90a"
SCHEMA = 1
EXCERPT_LINES = 48


@dataclass(frozen=True)
class Spec:
    """One compilation of one Triton function (see the module docstring)."""

    kernel: str
    build: str
    function: str
    signature: dict[str, str]
    constexprs: dict[str, object] = field(default_factory=dict)
    aligned: tuple[str, ...] = ()
    num_warps: int = 4
    num_stages: int = 3
    shows: str = ""


def _add_signature(dtype: str) -> dict[str, str]:
    return {
        "x_ptr": f"*{dtype}",
        "residual_ptr": f"*{dtype}",
        "out_ptr": f"*{dtype}",
        "n_elements": "i32",
        "BLOCK_SIZE": "constexpr",
    }


_ADD = dict(
    kernel="residual_add_relu",
    function="residual_add_relu_v1_kernel",
    constexprs={"BLOCK_SIZE": 1024},
    num_warps=4,
)
_ADD_ALIGNED = ("x_ptr", "residual_ptr", "out_ptr", "n_elements")

SPECS: list[Spec] = [
    Spec(
        **_ADD,
        build="fp32-aligned",
        signature=_add_signature("fp32"),
        aligned=_ADD_ALIGNED,
        shows="16-byte aligned pointers and a length divisible by 16: "
        "128-bit loads and stores",
    ),
    Spec(
        **_ADD,
        build="fp32-unaligned",
        signature=_add_signature("fp32"),
        aligned=(),
        shows="no alignment hint: one 32-bit load per element",
    ),
    Spec(
        **_ADD,
        build="fp32-aligned-pointers-odd-length",
        signature=_add_signature("fp32"),
        aligned=("x_ptr", "residual_ptr", "out_ptr"),
        shows="aligned pointers but a length not divisible by 16: the mask "
        "may cut any 4-element group, so the loads stay 32-bit",
    ),
    Spec(
        **_ADD,
        build="bf16-aligned",
        signature=_add_signature("bf16"),
        aligned=_ADD_ALIGNED,
        shows="bf16, aligned: 128-bit loads of 8 elements",
    ),
]

_SUM = dict(kernel="reduction", function="reduce_sum_v1_kernel", num_warps=8)
SPECS += [
    Spec(
        **_SUM,
        build="fp32-aligned",
        signature={
            "in_ptr": "*fp32",
            "out_ptr": "*fp32",
            "n_elements": "i32",
            "BLOCK_SIZE": "constexpr",
        },
        constexprs={"BLOCK_SIZE": 4096},
        aligned=("in_ptr", "out_ptr", "n_elements"),
        shows="stage one: 128-bit loads, a tree of warp shuffles, then "
        "shared memory to combine the warps",
    ),
    Spec(
        **_SUM,
        build="bf16-aligned",
        signature={
            "in_ptr": "*bf16",
            "out_ptr": "*fp32",
            "n_elements": "i32",
            "BLOCK_SIZE": "constexpr",
        },
        constexprs={"BLOCK_SIZE": 4096},
        aligned=("in_ptr", "out_ptr", "n_elements"),
        shows="bf16 input widened to float32 before the adds",
    ),
]

_SCAN_ALIGNED = ("x_ptr", "out_ptr", "n_elements")
SPECS += [
    Spec(
        kernel="scan",
        build="block-sums-fp32",
        function="scan_block_sums_kernel",
        signature={
            "x_ptr": "*fp32",
            "block_sums_ptr": "*fp32",
            "n_elements": "i32",
            "BLOCK_SIZE": "constexpr",
        },
        constexprs={"BLOCK_SIZE": 1024},
        aligned=("x_ptr", "block_sums_ptr", "n_elements"),
        shows="pass 1: one total per block",
    ),
    Spec(
        kernel="scan",
        build="apply-carries-fp32",
        function="scan_v1_kernel",
        signature={
            "x_ptr": "*fp32",
            "scanned_sums_ptr": "*fp32",
            "out_ptr": "*fp32",
            "n_elements": "i32",
            "BLOCK_SIZE": "constexpr",
        },
        constexprs={"BLOCK_SIZE": 1024},
        aligned=("x_ptr", "scanned_sums_ptr", "out_ptr", "n_elements"),
        shows="pass 3: the block scan crosses warps through shared memory",
    ),
]

_TRANSPOSE_SIGNATURE = {
    "x_ptr": "*fp32",
    "out_ptr": "*fp32",
    "M": "i32",
    "N": "i32",
    "stride_xm": "i32",
    "stride_xn": "constexpr",  # 1 for a contiguous x: the JIT makes it a constant
}
_TRANSPOSE_ALIGNED = ("x_ptr", "out_ptr", "M", "N", "stride_xm")
SPECS += [
    Spec(
        kernel="transpose",
        build="naive-fp32",
        function="transpose_v1_kernel",
        signature={**_TRANSPOSE_SIGNATURE, "BLOCK_N": "constexpr"},
        constexprs={"stride_xn": 1, "BLOCK_N": 256},
        aligned=_TRANSPOSE_ALIGNED,
        shows="contiguous 128-bit loads, but one 32-bit store per element",
    ),
    Spec(
        kernel="transpose",
        build="tiled-fp32",
        function="transpose_v2_kernel",
        signature={
            **_TRANSPOSE_SIGNATURE,
            "BLOCK_M": "constexpr",
            "BLOCK_N": "constexpr",
        },
        constexprs={"stride_xn": 1, "BLOCK_M": 64, "BLOCK_N": 64},
        aligned=_TRANSPOSE_ALIGNED,
        shows="the tile is transposed through shared memory, so stores are 128-bit too",
    ),
]


# matmul, softmax, attention: the configs their launchers use on a GPU
# (tests/scripts/test_artifacts.py checks the two agree).


def _matmul_spec(dtype: str, build: str, aligned: bool, shows: str) -> Spec:
    half = dtype in ("bf16", "fp16")
    pointers = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": f"*{dtype}"}
    ints = ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")
    unit_strides = ("stride_ak", "stride_bn", "stride_cn")  # 1: row-major
    signature = {
        **pointers,
        "M": "i32", "N": "i32", "K": "i32",
        "stride_am": "i32", "stride_ak": "constexpr",
        "stride_bk": "i32", "stride_bn": "constexpr",
        "stride_cm": "i32", "stride_cn": "constexpr",
        "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr",
        "GROUP_M": "constexpr", "DOT_PRECISION": "constexpr",
        "INTERPRETED": "constexpr",
    }  # fmt: skip
    tiles = (
        dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64)
        if half
        else dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    )
    return Spec(
        kernel="matmul",
        build=build,
        function="matmul_kernel",
        signature=signature,
        constexprs={
            **dict.fromkeys(unit_strides, 1),
            **tiles,
            "GROUP_M": 8,
            "DOT_PRECISION": "tf32" if half else "ieee",
            "INTERPRETED": False,
        },
        aligned=(*pointers, *ints) if aligned else (),
        num_warps=8 if half else 4,
        num_stages=3,
        shows=shows,
    )


SPECS += [
    _matmul_spec(
        "bf16", "bf16-aligned", True,
        "two warpgroups issue wgmma m64n256k16 (HGMMA), four per 64-deep K "
        "step, fed by 16-byte cp.async copies in a 3-stage pipeline",
    ),
    _matmul_spec("fp16", "fp16-aligned", True, "fp16: the same wgmma shape"),
    _matmul_spec(
        "fp32", "fp32-aligned", True,
        "IEEE float32 products: FFMA on the CUDA cores, no tensor cores",
    ),
    _matmul_spec(
        "bf16", "bf16-unaligned", False,
        "no 16-byte hints: one 2-byte load per element, no cp.async pipeline",
    ),
]  # fmt: skip


def _softmax_spec(function: str, dtype: str, block: int, warps: int, build: str,
                  shows: str) -> Spec:  # fmt: skip
    return Spec(
        kernel="softmax",
        build=build,
        function=function,
        signature={
            "x_ptr": f"*{dtype}",
            "out_ptr": f"*{dtype}",
            "cols": "i32",
            "x_row_stride": "i32",
            "out_row_stride": "i32",
            "BLOCK": "constexpr",
        },
        constexprs={"BLOCK": block},
        aligned=("x_ptr", "out_ptr", "cols", "x_row_stride", "out_row_stride"),
        num_warps=warps,
        num_stages=1,
        shows=shows,
    )


SPECS += [
    _softmax_spec(
        "softmax_v1_kernel", "fp32", 4096, 8, "v1-fp32-4096",
        "fused: 128-bit loads, the row's max and sum through warp shuffles",
    ),
    _softmax_spec(
        "softmax_v1_kernel", "bf16", 16384, 16, "v1-bf16-16384",
        "the widest fused row: 32 values per thread, still no spills",
    ),
    _softmax_spec(
        "softmax_v2_kernel", "bf16", 4096, 8, "v2-bf16-4096",
        "online: two loops over 4096-wide chunks, 128-bit loads",
    ),
]  # fmt: skip


def _attention_spec(dtype: str, head_dim: int, causal: bool, build: str,
                    shows: str) -> Spec:  # fmt: skip
    if dtype == "fp32":
        block_m, block_n, warps, stages = 32, 16, 4, 2
    else:
        block_m, block_n, stages = 128, 64, 3
        warps = 4 if head_dim <= 64 else 8
    return Spec(
        kernel="attention",
        build=build,
        function="attention_kernel",
        signature={
            "q_ptr": f"*{dtype}",
            "k_ptr": f"*{dtype}",
            "v_ptr": f"*{dtype}",
            "out_ptr": f"*{dtype}",
            "S": "i32",
            "qk_scale": "fp32",
            "HEAD_DIM": "constexpr",
            "BLOCK_D": "constexpr",
            "BLOCK_M": "constexpr",
            "BLOCK_N": "constexpr",
            "CAUSAL": "constexpr",
            "DOT_PRECISION": "constexpr",
            "INTERPRETED": "constexpr",
        },
        constexprs={
            "HEAD_DIM": head_dim,
            "BLOCK_D": max(16, 1 << (head_dim - 1).bit_length()),
            "BLOCK_M": block_m,
            "BLOCK_N": block_n,
            "CAUSAL": causal,
            "DOT_PRECISION": "ieee" if dtype == "fp32" else "tf32",
            "INTERPRETED": False,
        },
        aligned=("q_ptr", "k_ptr", "v_ptr", "out_ptr", "S"),
        num_warps=warps,
        num_stages=stages,
        shows=shows,
    )


SPECS += [
    _attention_spec(
        "bf16", 128, False, "bf16-d128",
        "S = QK^T and O += PV both on wgmma; exp2 on the MUFU unit; no spills",
    ),
    _attention_spec(
        "bf16", 128, True, "bf16-d128-causal",
        "causal: the masked diagonal step adds selects, still no spills",
    ),
    _attention_spec("fp16", 64, True, "fp16-d64-causal", "D = 64: 4 warps"),
    _attention_spec(
        "bf16", 80, False, "bf16-d80",
        "D = 80 padded to 128 inside the kernel, masked loads",
    ),
    _attention_spec(
        "fp32", 128, False, "fp32-d128",
        "IEEE float32 on FMA units; 32 x 16 tiles keep it from spilling",
    ),
]  # fmt: skip


# ---------------------------------------------------------------- reading


def kernels_in_registry() -> list[str]:
    """Kernel names in SPECS, in first-appearance order."""
    return list(dict.fromkeys(spec.kernel for spec in SPECS))


def source_path(kernel: str) -> Path:
    return ROOT / "kernels" / f"{kernel}.py"


def artifact_path(kernel: str, out_dir: Path = ARTIFACT_DIR) -> Path:
    return Path(out_dir) / f"{kernel}.{TARGET_ARCH}.json"


def sha256_file(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load_artifact(kernel: str, out_dir: Path = ARTIFACT_DIR) -> dict:
    return json.loads(artifact_path(kernel, out_dir).read_text())


def load_build(kernel: str, build: str, out_dir: Path = ARTIFACT_DIR) -> dict:
    """One build's record from a kernel's committed artifact file."""
    for record in load_artifact(kernel, out_dir)["builds"]:
        if record["build"] == build:
            return record
    raise KeyError(f"{kernel} artifact has no build {build!r}")


def stale_artifacts(out_dir: Path = ARTIFACT_DIR) -> list[str]:
    """One message per kernel whose artifact is missing or was built from a
    different source file (or from a different list of builds)."""
    problems = []
    for kernel in kernels_in_registry():
        rebuild = f"rebuild with `python scripts/artifacts.py {kernel}`"
        path = artifact_path(kernel, out_dir)
        if not path.exists():
            problems.append(f"{kernel}: no artifact at {path}; {rebuild}")
            continue
        artifact = json.loads(path.read_text())
        if artifact["source_sha256"] != sha256_file(source_path(kernel)):
            problems.append(
                f"{kernel}: kernels/{kernel}.py changed since its artifact "
                f"was built; {rebuild}"
            )
        wanted = [spec.build for spec in SPECS if spec.kernel == kernel]
        built = [record["build"] for record in artifact["builds"]]
        if wanted != built:
            problems.append(
                f"{kernel}: artifact has builds {built}, registry {wanted}; {rebuild}"
            )
    return problems


# ---------------------------------------------------------------- building


def _tool(name: str) -> str:
    import triton

    return str(Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name)


def _version(tool: str) -> str:
    text = subprocess.run(
        [_tool(tool), "--version"], capture_output=True, text=True, check=True
    ).stdout
    return text.strip().splitlines()[-2].strip()  # "Cuda compilation tools, ..."


_SASS_LINE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?P<text>[^;]*?)\s*;")
_PREDICATE = re.compile(r"^@!?U?P[T0-9]+\s+")
_INTERESTING_SASS = re.compile(
    r"^(LDG|STG|LDS|STS|LDSM|LDGSTS|LDL|STL|ATOM|RED|HGMMA|HMMA|WGMMA|"
    r"UTMALDG|UTMASTG|BAR|SYNCS|SHFL|WARPGROUP)"
)
_INTERESTING_PTX = re.compile(
    r"^(ld\.global|st\.global|ld\.shared|st\.shared|ld\.local|st\.local|"
    r"cp\.async|wgmma|mma|ldmatrix|bar|shfl|atom|red)"
)


def _sass_instructions(cubin: bytes) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cubin)
        listing = subprocess.run(
            [_tool("cuobjdump"), "-sass", str(path)],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
    lines = []
    for line in listing.splitlines():
        match = _SASS_LINE.match(line)
        if match:
            lines.append(" ".join(match["text"].split()))
    return lines


_PTX_PREFIX = re.compile(r"^(\s*([{}]|\$?[\w.]+:))+")  # braces and labels
_PTX_PREDICATE = re.compile(r"^@!?%\w+\s+")


def _ptx_instructions(ptx: str) -> list[str]:
    """PTX statements without predicates, directives, labels or comments."""
    code = "\n".join(line.split("//")[0] for line in ptx.splitlines())
    lines = []
    for statement in code.split(";"):
        text = _PTX_PREFIX.sub("", statement.strip()).strip()
        text = _PTX_PREDICATE.sub("", text)
        if text[:1].isalpha():
            lines.append(" ".join(text.split()))
    return lines


def _opcode_counts(instructions: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for text in instructions:
        opcode = _PREDICATE.sub("", text).split()[0]
        counts[opcode] = counts.get(opcode, 0) + 1
    return dict(sorted(counts.items()))


def _excerpt(instructions: list[str], pattern: re.Pattern) -> list[str]:
    keep = [t for t in instructions if pattern.match(_PREDICATE.sub("", t))]
    if len(keep) > EXCERPT_LINES:
        cut = len(keep) - EXCERPT_LINES
        keep = keep[:EXCERPT_LINES] + [f"... {cut} more lines"]
    return keep


def _resource_usage(cubin: bytes, ptx: str) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        cubin_path = Path(tmp) / "kernel.cubin"
        cubin_path.write_bytes(cubin)
        usage = subprocess.run(
            [_tool("cuobjdump"), "-res-usage", str(cubin_path)],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        ptx_path = Path(tmp) / "kernel.ptx"
        ptx_path.write_text(ptx)
        # The flags Triton passes to ptxas, plus -v for the spill report.
        log = subprocess.run(
            [_tool("ptxas"), "-lineinfo", "-suppress-debug-info", "-v",
             "--regAllocOptLevel=2", f"--gpu-name={TARGET_ARCH}",
             str(ptx_path), "-o", str(Path(tmp) / "check.cubin")],
            capture_output=True, text=True, check=True,
        ).stderr  # fmt: skip
    fields = dict(re.findall(r"\b(REG|STACK|SHARED|LOCAL):(\d+)", usage))
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", log)
    if spills is None or "REG" not in fields:
        raise RuntimeError(f"cannot read resource usage:\n{usage}\n{log}")
    return {
        "registers": int(fields["REG"]),
        "static_shared_bytes": int(fields["SHARED"]),
        "local_bytes": int(fields["LOCAL"]),
        "stack_bytes": int(fields["STACK"]),
        "spill_store_bytes": int(spills[1]),
        "spill_load_bytes": int(spills[2]),
    }


def compile_spec(spec: Spec) -> dict:
    """Compile one build for sm_90a and describe the result."""
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"  # keep the path out of it
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    module = importlib.import_module(f"kernels.{spec.kernel}")
    fn = getattr(module, spec.function)
    if not isinstance(fn, triton.runtime.JITFunction):
        raise RuntimeError(
            f"{spec.kernel}.{spec.function} was loaded for the interpreter; "
            "run with TRITON_INTERPRET=0 (the command line sets it)"
        )
    if list(spec.signature) != fn.arg_names:
        raise ValueError(
            f"{spec.kernel}/{spec.build}: signature lists {list(spec.signature)}, "
            f"{spec.function} takes {fn.arg_names}"
        )
    hint = [["tt.divisibility", 16]]
    attrs = {(fn.arg_names.index(name),): hint for name in spec.aligned}
    source = ASTSource(fn, dict(spec.signature), dict(spec.constexprs), attrs)
    compiled = triton.compile(
        source,
        target=GPUTarget("cuda", 90, 32),
        options={"num_warps": spec.num_warps, "num_stages": spec.num_stages},
    )
    cubin, ptx = compiled.asm["cubin"], compiled.asm["ptx"]
    if f".target {TARGET_ARCH}" not in ptx:
        raise RuntimeError(f"{spec.kernel}/{spec.build}: PTX is not for {TARGET_ARCH}")
    sass = _sass_instructions(cubin)
    ptx_lines = _ptx_instructions(ptx)
    return {
        "build": spec.build,
        "function": spec.function,
        "shows": spec.shows,
        "signature": dict(spec.signature),
        "constexprs": dict(spec.constexprs),
        "aligned": list(spec.aligned),
        "num_warps": spec.num_warps,
        "num_stages": spec.num_stages,
        "shared_bytes": int(compiled.metadata.shared),
        **_resource_usage(cubin, ptx),
        "cubin_sha256": hashlib.sha256(cubin).hexdigest(),
        "ptx_opcodes": _opcode_counts(ptx_lines),
        "sass_opcodes": _opcode_counts(sass),
        "ptx_excerpt": _excerpt(ptx_lines, _INTERESTING_PTX),
        "sass_excerpt": _excerpt(sass, _INTERESTING_SASS),
    }


def build_kernel(kernel: str, out_dir: Path = ARTIFACT_DIR) -> Path:
    """Compile every build of one kernel and write its artifact file."""
    import triton

    specs = [spec for spec in SPECS if spec.kernel == kernel]
    if not specs:
        known = ", ".join(kernels_in_registry())
        raise ValueError(f"no specs for kernel {kernel!r}; known: {known}")
    artifact = {
        "schema": SCHEMA,
        "kernel": kernel,
        "source": f"kernels/{kernel}.py",
        "source_sha256": sha256_file(source_path(kernel)),
        "target": TARGET_ARCH,
        "triton_version": triton.__version__,
        "ptxas_version": _version("ptxas"),
        "builds": [compile_spec(spec) for spec in specs],
    }
    path = artifact_path(kernel, out_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(artifact, indent=1) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*", help="kernel names (default: all)")
    parser.add_argument("--out", type=Path, default=ARTIFACT_DIR)
    args = parser.parse_args(argv)
    unknown = sorted(set(args.kernels) - set(kernels_in_registry()))
    if unknown:
        parser.error(f"unknown kernels {unknown}; known: {kernels_in_registry()}")
    for kernel in args.kernels or kernels_in_registry():
        path = build_kernel(kernel, args.out)
        print(f"{kernel}: wrote {path}")
    return 0


if __name__ == "__main__":
    # Compile, do not interpret; and make `import kernels` work when run as a
    # script from anywhere.
    os.environ["TRITON_INTERPRET"] = "0"
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
