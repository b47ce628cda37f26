"""Compile every kernel's artifact builds for Hopper (sm_90a), datacenter
Blackwell (sm_100a, B200-class) and consumer Blackwell (sm_120a, RTX 50-class)
without a GPU, and record what came out.

Evidence kind: a compiled artifact shows which instructions and resources the
code uses (load widths, matrix instructions, registers, spills). It says
nothing about speed.

Nothing here lists a kernel or a configuration. Every kernel module's
``DESCRIPTOR`` (``kernels.descriptor.discover()``) carries ``artifact_builds``;
each ``ArtifactBuild`` names a dtype and a shape, and the build compiles the
launch that ``DESCRIPTOR.launch_config(dtype, shape)[build.launch]`` gives
(the kernel's ``launch_config(dtype, **shape)``):
its function, constexprs, ``num_warps`` and ``num_stages``. The build itself
adds only what a launch decides from the tensors rather than from the config:

- ``signature``: the Triton type of every runtime parameter (``"*bf16"``,
  ``"i32"``, ``"fp32"``); every constexpr gets ``"constexpr"``;
- ``fixed``: constexprs the JIT would specialize at launch (a unit stride
  becomes the constant 1) or the launcher passes outside the config;
- ``aligned``: the arguments that get ``tt.divisibility = 16``. At launch the
  JIT marks every pointer whose address is a multiple of 16 bytes, and every
  integer argument that is a multiple of 16, that way; naming them mirrors
  "aligned tensors" (the usual case) or a misaligned launch.

Every build of kernel ``K`` for target ``T`` lands in one committed file,
``results/artifacts/K.T.json`` (kind ``"artifact"``, schema
``evidence/schemas/artifact.schema.json``), validated when written and
when read. Per build it holds the inputs (dtype, shape, the launch config as
``Launch.record()`` gives it, fixed, signature, constexprs, aligned, warps,
stages, shows) and what came out: ``registers``, ``shared_bytes`` (what
Triton asks for at launch), ``static_shared_bytes`` (cuobjdump's figure),
``local_bytes``, ``stack_bytes``, ``spill_store_bytes``,
``spill_load_bytes`` (``ptxas -v`` on the same PTX), ``cubin_sha256``,
``partitions`` (only in a warp-specialised build: ``partitions.py``),
``ptx_opcodes`` and ``sass_opcodes`` (every instruction counted by its full
opcode, e.g. ``"LDG.E.128": 4``), ``sass_loops`` (each backward branch's
span and the opcodes inside it: what a loop pays per trip), and
``ptx_excerpt``/``sass_excerpt`` (the memory, matrix and synchronization
instructions, in program order, cut at ``EXCERPT_LINES``). ``source_sha256``
is the hash of the kernel's source (``source_path``): when it no longer
matches the file, the artifact is stale and must be rebuilt.

Targets: Triton names an architecture from its compute capability with the
``a`` suffix from 9.0 up (``sm_arch_from_capability``: 90 -> ``sm_90a``, 100 ->
``sm_100a``, 120 -> ``sm_120a``), so a "sm_120" build is ``sm_120a`` in the
PTX and the cubin; for 10.0 and up it runs ``ptxas-blackwell``, and so does
the spill check here. The second Triton's folder holds sm_90a only.
Each target's limits (SM count, shared memory, registers, tensor memory)
are in ``kernels/devices.py``.

Line info is switched off while compiling (``TRITON_DISABLE_LINE_INFO=1``) so
the cubin does not embed this checkout's path; the instructions are the same.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import evidence
from evidence.artifacts import artifact_path, read_artifact
from kernels import devices
from kernels.descriptor import (
    ArtifactBuild,
    Descriptor,
    Launch,
    discover,
    kernel_module,
)
from scripts.artifacts.partitions import partitions
from scripts.cli import OneLineParser

ROOT = evidence.ROOT
ARTIFACT_DIR = evidence.RESULTS_DIR / "artifacts"
#: The GPU machine runs an older Triton than the CPU machines: every kernel
#: is also compiled with it, into its own folder, so the facts that differ
#: between the two compilers are on record (make artifacts-triton36).
SECOND_TRITON = "3.6"
SECOND_DIR = ARTIFACT_DIR / f"triton-{SECOND_TRITON}"
KIND = "artifact"
#: Architecture -> compute capability, in the order the files are built
#: (each target's limits: kernels/devices.py).
TARGETS = {arch: t.compute_capability for arch, t in devices.TARGETS.items()}
TARGET_ARCH = devices.PRIMARY_TARGET  # the one target of the second Triton's folder
SCHEMA = 2
EXCERPT_LINES = 48
PROG = "python -m scripts.artifacts"


class BuildError(ValueError):
    """A build its descriptor cannot give (its message names kernel and
    build)."""


@dataclass(frozen=True)
class Plan:
    """One ArtifactBuild resolved against its descriptor: exactly what is
    compiled, before compiling it."""

    kernel: str
    build: ArtifactBuild
    launch: Launch
    signature: dict[str, str]  # every parameter, in the function's order
    constexprs: dict[str, Any]  # config constexprs, then build.fixed

    def inputs(self) -> dict[str, Any]:
        """The record's input fields, as the artifact file stores them."""
        return {
            "build": self.build.build,
            "function": self.launch.kernel,
            "shows": self.build.shows,
            "dtype": self.build.dtype,
            "shape": dict(self.build.shape),
            "launch_index": self.build.launch,
            "launch": self.launch.record(),
            "fixed": dict(self.build.fixed),
            "signature": dict(self.signature),
            "constexprs": dict(self.constexprs),
            "aligned": list(self.build.aligned),
            "num_warps": self.launch.num_warps,
        }


def kernel_function(kernel: str, function: str):
    """The ``@triton.jit`` function (or the interpreter's stand-in)."""
    fn = getattr(kernel_module(kernel), function, None)
    if fn is None:
        raise BuildError(f"{kernel}: kernels.{kernel} has no function {function!r}")
    return fn


def plan(descriptor: Descriptor, build: ArtifactBuild) -> Plan:
    """Ask the descriptor for the launch this build compiles."""
    import torch

    where = f"{descriptor.name}/{build.build}"
    dtype = getattr(torch, build.dtype, None)
    if not isinstance(dtype, torch.dtype):
        raise BuildError(f"{where}: dtype {build.dtype!r} is not a torch dtype")
    launches = descriptor.launch_config(dtype, build.shape)
    if not 0 <= build.launch < len(launches):
        raise BuildError(
            f"{where}: launch {build.launch}, but launch_config gives "
            f"{len(launches)} launch(es)"
        )
    launch = launches[build.launch]
    constexprs = {**launch.constexprs, **build.fixed}
    both = sorted(set(build.signature) & set(constexprs))
    if both:
        raise BuildError(f"{where}: {both} are both typed and constexpr")
    types = {**build.signature, **dict.fromkeys(constexprs, "constexpr")}
    arg_names = list(kernel_function(descriptor.name, launch.kernel).arg_names)
    if sorted(types) != sorted(arg_names):
        missing = [name for name in arg_names if name not in types]
        extra = [name for name in types if name not in arg_names]
        raise BuildError(
            f"{where}: {launch.kernel} takes {arg_names}; no type or value for "
            f"{missing}, unknown {extra}"
        )
    if any(types.get(name, "constexpr") == "constexpr" for name in build.aligned):
        raise BuildError(f"{where}: aligned {list(build.aligned)} must be runtime args")
    return Plan(
        kernel=descriptor.name,
        build=build,
        launch=launch,
        signature={name: types[name] for name in arg_names},
        constexprs={name: constexprs[name] for name in arg_names if name in constexprs},
    )


def plans(descriptor: Descriptor, target: str | None = None) -> list[Plan]:
    """The descriptor's builds, planned; with ``target``, only those built
    for it."""
    return [
        plan(descriptor, build)
        for build in descriptor.artifact_builds
        if target is None or build.built_for(target)
    ]


def built_kernels(descriptors: Mapping[str, Descriptor] | None = None) -> list[str]:
    """Kernels with at least one artifact build, in discovery order."""
    descriptors = discover() if descriptors is None else descriptors
    return [name for name, d in descriptors.items() if d.artifact_builds]


# ---------------------------------------------------------------- reading


def source_path(kernel: str) -> Path:
    """The one file whose hash identifies the kernel's artifact: the module
    ``kernels/<kernel>.py``, or the ``versions.py`` of a ``kernels/<kernel>/``
    package (its kernels; ``describe.py`` holds the builds, whose inputs
    the staleness check compares field by field)."""
    path = evidence.kernel_artifact_source(kernel)
    if path is None:
        raise BuildError(
            f"{kernel}: expected kernels/{kernel}.py or kernels/{kernel}/versions.py"
        )
    return path


def targets_for(out_dir: Path) -> tuple[str, ...]:
    """The targets a folder holds: every one, or sm_90a in a second
    Triton's folder (``triton-3.6``)."""
    return (TARGET_ARCH,) if _folder_version(out_dir) else tuple(TARGETS)


def stale_artifacts(
    out_dir: Path = ARTIFACT_DIR,
    descriptors: Mapping[str, Descriptor] | None = None,
    targets: Sequence[str] | None = None,
) -> list[str]:
    """One message per kernel and target whose artifact is missing,
    malformed, built for another target, from a different source file, or
    from other builds or configs than its descriptor gives today."""
    descriptors = discover() if descriptors is None else descriptors
    targets = targets_for(out_dir) if targets is None else targets
    problems = []
    for kernel in built_kernels(descriptors):
        for target in targets:
            problems += _stale(kernel, target, out_dir, descriptors)
    return problems


def _stale(
    kernel: str, target: str, out_dir: Path, descriptors: Mapping[str, Descriptor]
) -> list[str]:
    """The problems of one kernel's artifact for one target."""
    problems = []
    rebuild = f"rebuild with `{PROG} {kernel} --target {target}`"
    path = artifact_path(kernel, folder=out_dir, target=target)
    if not path.exists():
        problems.append(f"{kernel}: no artifact at {path}; {rebuild}")
        return problems
    try:
        artifact = read_artifact(kernel, out_dir, target)
    except evidence.ResultFileError as exc:
        problems.append(f"{kernel}: {exc}; {rebuild}")
        return problems
    if artifact["target"] != target:
        problems.append(f"{kernel}: {path.name} holds {artifact['target']}; {rebuild}")
        return problems
    source = source_path(kernel)
    if artifact["source_sha256"] != evidence.sha256_file(source):
        problems.append(
            f"{kernel}: {evidence.display_path(source)} changed since its "
            f"{target} artifact was built; {rebuild}"
        )
    wanted = [plan.inputs() for plan in plans(descriptors[kernel], target)]
    names = [inputs["build"] for inputs in wanted]
    built = [record["build"] for record in artifact["builds"]]
    if names != built:
        problems.append(
            f"{kernel}: {target} artifact has builds {built}, descriptor "
            f"{names}; {rebuild}"
        )
        return problems
    for inputs, record in zip(wanted, artifact["builds"], strict=True):
        differ = [key for key, value in inputs.items() if record[key] != value]
        if differ:
            problems.append(
                f"{kernel}/{inputs['build']}: {', '.join(differ)} differ from "
                f"what the descriptor gives today ({target}); {rebuild}"
            )
    return problems


# ---------------------------------------------------------------- building


def _tool(name: str, target: str = TARGET_ARCH) -> str:
    """A CUDA tool shipped with Triton (for 10.0 and up, ptxas-blackwell if any)."""
    import triton

    folder = Path(triton.__file__).parent / "backends" / "nvidia" / "bin"
    if name == "ptxas" and TARGETS.get(target, 0) >= 100:
        if (folder / "ptxas-blackwell").is_file():
            return str(folder / "ptxas-blackwell")
    return str(folder / name)


def tool_version(tool: str, target: str = TARGET_ARCH) -> str:
    text = _run(_tool(tool, target), "--version").stdout
    return text.strip().splitlines()[-2].strip()  # "Cuda compilation tools, ..."


_SASS_LINE = re.compile(r"^\s*/\*(?P<address>[0-9a-f]{4,})\*/\s+(?P<text>[^;]*?)\s*;")
_BRANCH = re.compile(r"\bBRA\b.*\b0x(?P<target>[0-9a-f]+)\s*$")
_PREDICATE = re.compile(r"^@!?U?P[T0-9]+\s+")
_INTERESTING_SASS = re.compile(
    r"^(LDG|STG|LDS|STS|LDSM|LDGSTS|LDL|STL|ATOM|RED|HGMMA|HMMA|WGMMA|QGMMA|"
    r"UTMALDG|UTMASTG|UTC|LDTM|STTM|BAR|SYNCS|SHFL|WARPGROUP|MUFU)"
)
_INTERESTING_PTX = re.compile(
    r"^(ld\.global|st\.global|ld\.shared|st\.shared|ld\.local|st\.local|"
    r"cp\.async|wgmma|mma|tcgen05|ldmatrix|bar|shfl|atom|red)"
)


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, check=True)


def _sass_listing(cubin: bytes) -> list[tuple[int, str]]:
    """(address, instruction) for every SASS instruction, in order."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cubin)
        listing = _run(_tool("cuobjdump"), "-sass", str(path)).stdout
    lines = []
    for line in listing.splitlines():
        match = _SASS_LINE.match(line)
        if match:
            lines.append((int(match["address"], 16), " ".join(match["text"].split())))
    return lines


def _sass_instructions(cubin: bytes) -> list[str]:
    return [text for _, text in _sass_listing(cubin)]


def sass_loops(listing: list[tuple[int, str]]) -> list[dict]:
    """Every loop of the SASS: a predicated branch back to an earlier
    address (the loop's back edge). For each, the instruction indices it
    spans, its opcodes counted as in ``sass_opcodes`` (what runs on every
    trip: a barrier inside a spin loop is paid on every trip, one after it
    once), and its warpgroup waits by their full text
    (``WARPGROUP.DEPBAR.LE gsb0, 0x1`` lets one wgmma group stay in flight,
    ``0x0`` waits for all). Unconditional back branches are left out: the
    compiler places the retry of an mbarrier wait out of line and jumps
    back from there, which is not a loop of the kernel's."""
    loops = []
    for last, (address, text) in enumerate(listing):
        branch = _BRANCH.search(text)
        if branch is None or not text.startswith("@"):
            continue
        target = int(branch["target"], 16)
        if target >= address:
            continue
        first = next(i for i, (a, _) in enumerate(listing) if a >= target)
        body = [t for _, t in listing[first : last + 1]]
        waits: dict[str, int] = {}
        for t in body:
            if _PREDICATE.sub("", t).startswith("WARPGROUP.DEPBAR"):
                waits[_PREDICATE.sub("", t)] = waits.get(_PREDICATE.sub("", t), 0) + 1
        loops.append(
            {
                "first": first,
                "last": last,
                "opcodes": _opcode_counts(body),
                "waits": dict(sorted(waits.items())),
            }
        )
    return loops


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


def _resource_usage(cubin: bytes, ptx: str, target: str) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        cubin_path = Path(tmp) / "kernel.cubin"
        cubin_path.write_bytes(cubin)
        usage = _run(_tool("cuobjdump"), "-res-usage", str(cubin_path)).stdout
        ptx_path = Path(tmp) / "kernel.ptx"
        ptx_path.write_text(ptx)
        # The flags Triton passes to ptxas, plus -v for the spill report.
        log = _run(
            _tool("ptxas", target),
            "-lineinfo",
            "-suppress-debug-info",
            "-v",
            "--regAllocOptLevel=2",
            f"--gpu-name={target}",
            str(ptx_path),
            "-o",
            str(Path(tmp) / "check.cubin"),
        ).stderr
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


def compile_plan(plan: Plan, target: str = TARGET_ARCH) -> dict:
    """Compile one build for ``target`` and describe the result."""
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"  # keep the path out of it
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    where = f"{plan.kernel}/{plan.build.build}"
    fn = kernel_function(plan.kernel, plan.launch.kernel)
    if not isinstance(fn, triton.runtime.JITFunction):
        raise BuildError(
            f"{where}: kernels.{plan.kernel} was loaded for the interpreter; "
            f"run `{PROG}` (it sets TRITON_INTERPRET=0)"
        )
    hint = [["tt.divisibility", 16]]
    attrs = {(fn.arg_names.index(name),): hint for name in plan.build.aligned}
    source = ASTSource(fn, dict(plan.signature), dict(plan.constexprs), attrs)
    # launch.options(): num_warps, and num_stages unless Triton's default.
    compiled = triton.compile(
        source,
        target=GPUTarget("cuda", TARGETS[target], devices.WARP_SIZE),
        options=plan.launch.options(),
    )
    return {**plan.inputs(), **describe_compiled(compiled, target, where)}


def describe_compiled(compiled, target: str, where: str) -> dict:
    """A compiled kernel's output fields (Triton's, or Gluon's: gluon.py)."""
    cubin, ptx = compiled.asm["cubin"], compiled.asm["ptx"]
    if f".target {target}" not in ptx:
        raise RuntimeError(f"{where}: PTX is not for {target}")
    listing = _sass_listing(cubin)
    sass = [text for _, text in listing]
    ptx_lines = _ptx_instructions(ptx)
    found = partitions(compiled.asm["ttgir"])  # a warp-specialised build's only
    return {
        # What the compiler used: the launch's stages, or Triton's default.
        "num_stages": int(compiled.metadata.num_stages),
        "shared_bytes": int(compiled.metadata.shared),
        **_resource_usage(cubin, ptx, target),
        "cubin_sha256": evidence.sha256_bytes(cubin),
        "ptx_opcodes": _opcode_counts(ptx_lines),
        "sass_opcodes": _opcode_counts(sass),
        "ptx_excerpt": _excerpt(ptx_lines, _INTERESTING_PTX),
        "sass_excerpt": _excerpt(sass, _INTERESTING_SASS),
        "sass_loops": sass_loops(listing),
        **({"partitions": found} if found else {}),
    }


def build_kernel(
    descriptor: Descriptor,
    out_dir: Path = ARTIFACT_DIR,
    builds: Sequence[str] = (),
    target: str = TARGET_ARCH,
) -> Path:
    """Compile every build of one kernel (or only the named ones) for one
    target and write its artifact file."""
    import triton

    kernel = descriptor.name
    source = source_path(kernel)
    artifact = {
        "schema": SCHEMA,
        "kernel": kernel,
        "source": source.relative_to(ROOT).as_posix(),
        "source_sha256": evidence.sha256_file(source),
        "target": target,
        "triton_version": triton.__version__,
        "ptxas_version": tool_version("ptxas", target),
        "builds": [
            compile_plan(plan, target)
            for plan in plans(descriptor, target)
            if not builds or plan.build.build in builds
        ],
    }
    path = artifact_path(kernel, folder=out_dir, target=target)
    return evidence.write(KIND, path, artifact)


def _folder_version(out: Path) -> str | None:
    """ "3.6" for a folder named triton-3.6: artifacts of that Triton only."""
    match = re.fullmatch(r"triton-(\d+\.\d+)", Path(out).name)
    return match[1] if match else None


def parse_args(argv: list[str] | None):
    """The command line's arguments; a mistake is one line, exit status 2."""
    description = f"Compile the kernels' artifact builds for {', '.join(TARGETS)}."
    parser = OneLineParser(prog=PROG, description=description)
    parser.add_argument("kernels", nargs="*", help="kernel names (default: all)")
    parser.add_argument(
        "--out",
        type=Path,
        default=ARTIFACT_DIR,
        metavar="DIR",
        help="where to write <kernel>.<target>.json (default: results/artifacts)",
    )
    parser.add_argument(
        "--target",
        action="append",
        default=[],
        choices=list(TARGETS),
        help="compile for this target only (repeatable; default: the folder's)",
    )
    parser.add_argument(
        "--build",
        action="append",
        default=[],
        metavar="NAME",
        help="compile only this build (repeatable; for checks, not the record)",
    )
    return parser.parse_args(argv)


def refusal(args, known: list[str], targets) -> str | None:
    """Why these arguments cannot run here, in one line; None when they can."""
    wanted = _folder_version(args.out)
    if wanted is not None:
        import triton

        if not triton.__version__.startswith(f"{wanted}."):
            return (
                f"{args.out} holds Triton {wanted} artifacts, but "
                f"this Python has Triton {triton.__version__}"
            )
    unknown = [name for name in args.kernels if name not in known]
    if unknown:
        return f"unknown kernels {unknown}; known: {', '.join(known)}"
    if wanted is not None and set(targets) - {TARGET_ARCH}:
        return f"{args.out} holds {TARGET_ARCH} artifacts only"
    return None


def main(argv: list[str] | None = None) -> int:
    """The command line; ``python -m scripts.artifacts`` sets
    TRITON_INTERPRET=0 before calling it."""
    args = parse_args(argv)
    descriptors = discover()
    known = built_kernels(descriptors)
    targets = args.target or targets_for(args.out)
    refused = refusal(args, known, targets)
    if refused:
        print(f"{PROG}: error: {refused}", file=sys.stderr)
        return 2
    try:
        for kernel in args.kernels or known:
            for target in targets:
                path = build_kernel(descriptors[kernel], args.out, args.build, target)
                print(f"{kernel}: wrote {evidence.display_path(path)}")
    except (BuildError, evidence.ResultFileError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    return 0
