"""``python -m scripts.artifacts.gluon [--out DIR]``: compile the Gluon matmul
(``kernels/matmul/gluon.py``) for sm_90a and sm_100a without a GPU, and
record what came out beside the layouts Triton chose for version 2.

Writes, under ``results/artifacts/gluon/`` (a folder of its own, so the
descriptor-driven builder's check that every top-level artifact belongs to
a descriptor is untouched):

- ``matmul.<target>.json``: kind ``"artifact"`` (the same schema and the
  same output fields as ``scripts/artifacts/build.py``, through its
  ``describe_compiled``), one build per file: the target's Gluon kernel
  with ``GLUON_CONFIG``'s tiles, bf16 operands;
- ``triton-3.6/``: the same files from Triton 3.6, the GPU machine's
  compiler (run with that Triton; the folder's name is checked);
- ``layouts.json``: for each target, every layout attribute the TTGIR
  defines (``#mma = #ttg.nvidia_mma<...>``), for the Gluon build and for
  Triton's version 2 build ``v2-bf16-tma-persistent`` compiled here the
  same way ``scripts.artifacts`` compiles it: the layouts Triton picked,
  read where the compiler writes them.

Evidence kind: compiled artifact. Nothing here runs a kernel.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import evidence
from kernels.devices import SM90A, SM100A, WARP_SIZE
from scripts.cli import OneLineParser

PROG = "python -m scripts.artifacts.gluon"
OUT = evidence.RESULTS_DIR / "artifacts" / "gluon"
SOURCE = "kernels/matmul/gluon.py"
GLUON_TARGETS = {t.arch: t.compute_capability for t in (SM90A, SM100A)}
BUILD = "gluon-bf16-tma-persistent"
#: The Triton build whose layouts sit beside the Gluon build's.
TRITON_BUILD = "v2-bf16-tma-persistent"
SHOWS = {
    SM90A.arch: "Gluon on Hopper: one instruction stream, a 3-slot TMA ring with "
    "one mbarrier per slot, wgmma m64n256k16 kept one group in flight",
    SM100A.arch: "Gluon on datacenter Blackwell: a TMA warp, an MMA warp and the "
    "epilogue warps (gl.warp_specialize), tcgen05 products into tensor memory",
}
_LAYOUT_LINE = re.compile(r"^#(?!loc)([A-Za-z_][\w]*) = (#.*)$")


def ttgir_layouts(ttgir: str) -> dict[str, str]:
    """Every attribute alias the TTGIR module defines, except locations:
    ``{"mma": "#ttg.nvidia_mma<{...}>", "shared": ...}``."""
    found = {}
    for line in ttgir.splitlines():
        if match := _LAYOUT_LINE.match(line.strip()):
            found[match[1]] = match[2]
    return found


def _gluon_signature(config) -> tuple[dict, dict]:
    from kernels.matmul.gluon import descriptor_types

    signature = {**descriptor_types("bf16", config), "M": "i32", "N": "i32", "K": "i32"}
    constexprs = {
        "GROUP_M": config.GROUP_M,
        "STAGES": config.STAGES,
        "num_warps": config.num_warps,
    }
    return signature, constexprs


def compile_gluon(target: str):
    """The Gluon kernel of ``target`` compiled with ``GLUON_CONFIG``; M, N
    and K marked multiples of 16, as a launch on aligned sizes does."""
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    from kernels.matmul.gluon import GLUON_CONFIG, KERNELS

    fn = KERNELS[target]
    signature, constexprs = _gluon_signature(GLUON_CONFIG)
    types = {**signature, **dict.fromkeys(constexprs, "constexpr")}
    hint = [["tt.divisibility", 16]]
    attrs = {(fn.arg_names.index(name),): hint for name in ("M", "N", "K")}
    source = GluonASTSource(fn, types, constexprs, attrs)
    options = {"num_warps": GLUON_CONFIG.num_warps}
    return triton.compile(
        source,
        target=GPUTarget("cuda", GLUON_TARGETS[target], WARP_SIZE),
        options=options,
    )


def gluon_record(target: str, compiled) -> dict:
    """One build record in the artifact schema: the inputs, then what came
    out (``describe_compiled``)."""
    from kernels.matmul.gluon import GLUON_CONFIG, KERNELS
    from scripts.artifacts.build import describe_compiled

    signature, constexprs = _gluon_signature(GLUON_CONFIG)
    function = KERNELS[target].__name__
    return {
        "build": BUILD,
        "function": function,
        "shows": SHOWS[target],
        "dtype": "bfloat16",
        "shape": {"M": 8192, "N": 8192, "K": 8192},
        "launch_index": 0,
        "launch": {
            "kernel": function,
            "constexprs": constexprs,
            "num_warps": GLUON_CONFIG.num_warps,
        },
        "fixed": {},
        # The schema's descriptor type has no layout: the shared layout each
        # descriptor carries is in layouts.json (#shared).
        "signature": {
            **{k: re.sub(r",NVMMA.*>$", ">", v) for k, v in signature.items()},
            **dict.fromkeys(constexprs, "constexpr"),
        },
        "constexprs": constexprs,
        "aligned": ["M", "N", "K"],
        "num_warps": GLUON_CONFIG.num_warps,
        **describe_compiled(compiled, target, f"matmul/{BUILD}"),
    }


def triton_ttgir(target: str) -> str:
    """Version 2's TTGIR, compiled from the matmul descriptor's plan."""
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from kernels.matmul.describe import DESCRIPTOR
    from scripts.artifacts.build import kernel_function, plan

    (build,) = [b for b in DESCRIPTOR.artifact_builds if b.build == TRITON_BUILD]
    p = plan(DESCRIPTOR, build)
    fn = kernel_function("matmul", p.launch.kernel)
    attrs = {(fn.arg_names.index(n),): [["tt.divisibility", 16]] for n in build.aligned}
    source = ASTSource(fn, dict(p.signature), dict(p.constexprs), attrs)
    compiled = triton.compile(
        source,
        target=GPUTarget("cuda", GLUON_TARGETS[target], WARP_SIZE),
        options=p.launch.options(),
    )
    return compiled.asm["ttgir"]


def build_all(out: Path = OUT) -> list[Path]:
    """Compile both targets, write both artifact files and layouts.json."""
    import triton

    from scripts.artifacts.build import tool_version

    source = evidence.ROOT / SOURCE
    written, layouts = [], {}
    for target in GLUON_TARGETS:
        compiled = compile_gluon(target)
        artifact = {
            "schema": 2,
            "kernel": "matmul",
            "source": SOURCE,
            "source_sha256": evidence.sha256_file(source),
            "target": target,
            "triton_version": triton.__version__,
            "ptxas_version": tool_version("ptxas", target),
            "builds": [gluon_record(target, compiled)],
        }
        written.append(
            evidence.write("artifact", out / f"matmul.{target}.json", artifact)
        )
        layouts[target] = {
            BUILD: ttgir_layouts(compiled.asm["ttgir"]),
            TRITON_BUILD: ttgir_layouts(triton_ttgir(target)),
        }
    path = out / "layouts.json"
    path.write_text(
        evidence.dumps(
            {
                "triton_version": triton.__version__,
                "source_sha256": evidence.sha256_file(source),
                "targets": layouts,
            }
        ),
        encoding="utf-8",
    )
    return [*written, path]


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog=PROG, tool=PROG, description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=OUT,
        metavar="DIR",
        help="where to write (default: results/artifacts/gluon)",
    )
    args = parser.parse_args(argv)
    if args.out.exists() and not args.out.is_dir():
        print(f"{PROG}: error: --out {args.out} is not a folder", file=sys.stderr)
        return 2
    wanted = re.fullmatch(r"triton-(\d+\.\d+)", args.out.name)
    import triton

    if wanted and not triton.__version__.startswith(wanted[1] + "."):
        print(
            f"{PROG}: error: {args.out} holds Triton {wanted[1]} artifacts, but "
            f"this Python has Triton {triton.__version__}",
            file=sys.stderr,
        )
        return 2
    for path in build_all(args.out):
        print(f"wrote {evidence.display_path(path)}")
    return 0


if __name__ == "__main__":
    os.environ["TRITON_INTERPRET"] = "0"  # compile, do not interpret
    sys.exit(main())
