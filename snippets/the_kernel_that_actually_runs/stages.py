"""The four artifacts of one Triton kernel: source, Triton IR, PTX and SASS.

Shown on docs/kernels/work-mapping/the-kernel-that-actually-runs.md. The
kernel is kernels/residual_add_relu.py, compiled for sm_90a without a GPU.
TTIR and TTGIR lines come from ir_excerpts.json in this folder (written by
`python -m snippets.the_kernel_that_actually_runs.stages --write`, which
needs Triton but no GPU); PTX and SASS facts come from the committed
artifact results/artifacts/residual_add_relu.sm_90a.json. Evidence kind:
compiled artifact. None of it says how long the kernel takes.
"""

from __future__ import annotations

import json
import re
import sys
from hashlib import sha256
from pathlib import Path

from evidence.artifacts import artifact_path, read_artifact
from evidence.tables import markdown_table

ROOT = Path(__file__).resolve().parents[2]
KERNEL_SOURCE = ROOT / "kernels" / "residual_add_relu.py"
ARTIFACT = artifact_path("residual_add_relu")
EXCERPTS = Path(__file__).with_name("ir_excerpts.json")
BUILDS = {"aligned": "fp32-aligned", "unaligned": "fp32-unaligned"}


# --8<-- [start:dump]
def compile_stages(aligned: bool) -> dict[str, str]:
    """Compile the residual-add kernel for sm_90a (no GPU needed) and return
    every stage Triton produced: ttir, ttgir, llir, ptx and cubin."""
    import os

    os.environ["TRITON_INTERPRET"] = "0"  # a real compile, not the interpreter
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from kernels.residual_add_relu import residual_add_relu_v1_kernel as kernel

    signature = {"x_ptr": "*fp32", "residual_ptr": "*fp32", "out_ptr": "*fp32"}
    signature["n_elements"] = "i32"
    # The alignment hint: each argument divisible by 16 (bytes or elements).
    hint = {(i,): [["tt.divisibility", 16]] for i in range(4)} if aligned else {}
    source = ASTSource(kernel, signature, {"BLOCK_SIZE": 1024}, hint)
    compiled = triton.compile(
        source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4}
    )
    return dict(compiled.asm)
    # --8<-- [end:dump]


# --8<-- [start:excerpt]
_LOC = re.compile(r"\s+loc\([^)]*\)$")


def first_line(text: str, pattern: str) -> str:
    """The first line of one stage that matches, without its source
    location (which names a path on the machine that compiled it)."""
    for line in text.splitlines():
        if re.search(pattern, line):
            return _LOC.sub("", line.strip())
    raise ValueError(f"pattern {pattern!r} matches no line")


def excerpt(asm: dict[str, str]) -> dict[str, str]:
    """The line of each IR stage that shows how a load is spread over
    threads: TTIR has no layout yet, TTGIR has one."""
    return {
        "ttir": first_line(asm["ttir"], r"= tt\.load "),
        "ttgir": first_line(asm["ttgir"], r"^#blocked\d* = "),
    }
    # --8<-- [end:excerpt]


def kernel_source(source: Path = KERNEL_SOURCE) -> str:
    """The jitted function's text, from its decorator to its last line."""
    lines = Path(source).read_text(encoding="utf-8").splitlines()
    start = lines.index("@triton.jit")
    end = start + 2
    while end < len(lines) and (not lines[end] or lines[end][0] in " )"):
        end += 1
    return "\n".join(lines[start:end]).rstrip()


def kernel_sha256(source: Path = KERNEL_SOURCE) -> str:
    """Hash of the kernel's text only: a change elsewhere in the module (a
    goal, a docstring) does not change the compiled kernel."""
    return sha256(kernel_source(source).encode()).hexdigest()


def write_excerpts(path: Path = EXCERPTS) -> Path:
    import triton

    data = {
        "kernel": "kernels/residual_add_relu.py",
        "kernel_sha256": kernel_sha256(),
        "triton_version": triton.__version__,
        "target": "cuda:90",
        "builds": {name: excerpt(compile_stages(name == "aligned")) for name in BUILDS},
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def load_excerpts(path: Path = EXCERPTS) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def artifact_build(name: str, path: Path = ARTIFACT) -> dict:
    """One build of the kernel's artifact (read by evidence/artifacts.py)."""
    folder = Path(path).parent
    for build in read_artifact("residual_add_relu", folder)["builds"]:
        if build["build"] == name:
            return build
    raise ValueError(f"{path}: no build {name!r}")


def _first(lines: list[str], prefix: str) -> str:
    return next(line for line in lines if prefix in line)


def stage_line(stage: str, which: str = "aligned") -> str:
    """The line each stage shows for the kernel's first load, as a code span."""
    if which not in BUILDS:
        raise ValueError(f"which must be one of {sorted(BUILDS)}, got {which!r}")
    if stage in ("ttir", "ttgir"):
        text = load_excerpts()["builds"][which][stage]
    elif stage == "ptx":
        text = _first(artifact_build(BUILDS[which])["ptx_excerpt"], "ld.global")
    elif stage == "sass":
        text = _first(artifact_build(BUILDS[which])["sass_excerpt"], "LDG")
    else:
        raise ValueError(f"stage must be ttir, ttgir, ptx or sass, got {stage!r}")
    return f"`{text}`"


def stage_block(which: str = "aligned") -> str:
    """A fenced block: the first load as each stage writes it."""
    lines = []
    for stage in ("ttir", "ttgir", "ptx", "sass"):
        lines.append(f"// {stage.upper()}")
        lines.append(stage_line(stage, which).strip("`"))
    return "```text\n" + "\n".join(lines) + "\n```"


STAGES = (
    ("source", "`kernels/residual_add_relu.py`", "what you meant: one program "
     "per 1,024 elements, masked loads, a store",
     "anything about instructions, registers or vector width"),
    ("TTIR", "`asm['ttir']`, `*.ttir` in the cache", "the program as tensor "
     "operations after inlining and constant folding; which loads and stores "
     "exist", "how the tensor is spread over threads: no layout yet"),
    ("TTGIR", "`asm['ttgir']`, `*.ttgir`", "the layout: elements per thread, "
     "threads per warp, warps per block; shared-memory buffers and the "
     "pipeline", "the final instruction choice"),
    ("PTX", "`asm['ptx']`, `*.ptx`", "the virtual ISA: vector loads "
     "(`ld.global.v4`), `wgmma`, barriers", "registers or spills: ptxas "
     "allocates those later"),
    ("SASS", "`cuobjdump -sass` on `asm['cubin']`", "what the SM executes: "
     "`LDG.E.128`, `HGMMA`; with ptxas's report, registers, shared memory "
     "and spills", "how long anything takes"),
)  # fmt: skip


def stage_table() -> str:
    """Markdown: each artifact, where to get it, what it can and cannot show."""
    header = ["artifact", "where to get it", "can establish", "cannot establish"]
    return markdown_table(header, STAGES, escape=False)


def excerpts_fresh() -> bool:
    """Whether the committed excerpts were made from the current kernel."""
    return load_excerpts()["kernel_sha256"] == kernel_sha256()


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        print(f"wrote {write_excerpts().relative_to(ROOT)}")
    else:
        for which in BUILDS:
            for stage in ("ttir", "ttgir", "ptx", "sass"):
                line = stage_line(stage, which).strip("`")
                print(f"{which:9} {stage.upper():5} {line[:70]}")
