"""The one reader of compiled artifacts, results/artifacts/<op>.sm_90a.json.

`python -m scripts.artifacts` compiles each kernel for sm_90a without a GPU
and writes one file per kernel. Evidence kind: compiled artifact: which
instructions, registers and shared memory the code uses, never its speed.
Everything a page or a tool needs to read such a file lives here once: the
path, the load (checked against ``evidence/schemas/artifact.schema.json``,
as the builder checks what it writes), the "Stale
artifact" warning when the kernel source changed after the build, the "Not
compiled yet" note when there is no file, the SASS opcode families and the
HGMMA shape. Readings that explain one lesson's kernel stay in that lesson
(or in snippets/lib/ when several lessons share them).

A missing file is not an error for ``load`` (the page says so) and is one for
``read_artifact`` (the builder and its tests); a file that breaks the schema
raises ArtifactError naming the file and the field, so the site build fails.
"""

from __future__ import annotations

import re
from pathlib import Path

from evidence import ROOT, ResultFileError, read, sha256_file
from kernels.devices import PRIMARY_TARGET, WARP_SIZE

ARTIFACTS = ROOT / "results" / "artifacts"
TARGET = PRIMARY_TARGET
#: A build's threads are num_warps x this (kernels/devices.py).
THREADS_PER_WARP = WARP_SIZE
#: What a page shows in prose where a number from a missing artifact goes.
NOT_COMPILED = "(not compiled yet)"

KIND = "artifact"


class ArtifactError(ResultFileError):
    """The artifact exists but is not a valid artifact file."""


def artifact_path(
    op: str,
    triton: str | None = None,
    *,
    folder: Path | None = None,
    target: str = TARGET,
) -> Path:
    """The artifact of kernels/<op> for ``target``: committed, or under
    results/artifacts/triton-3.6/ for ``triton='3.6'`` (the GPU machine's
    compiler), or in ``folder``."""
    if folder is None:
        folder = ARTIFACTS if triton is None else ARTIFACTS / f"triton-{triton}"
    return Path(folder) / f"{op}.{target}.json"


def load(op: str, path: Path | None = None) -> dict | None:
    """The artifact of `op` (or the file at `path`), checked against its
    schema; None when the file does not exist."""
    path = Path(path or artifact_path(op))
    if not path.is_file():
        return None
    try:
        return read(KIND, path).data
    except ResultFileError as exc:
        raise ArtifactError(str(exc)) from exc


def read_artifact(op: str, folder: Path | None = None, target: str = TARGET) -> dict:
    """Like ``load``, but a missing file is an ArtifactError too."""
    path = artifact_path(op, folder=folder, target=target)
    data = load(op, path)
    if data is None:
        raise ArtifactError(f"{path}: no artifact of {op} for {target}")
    return data


def build(op: str, name: str, path: Path | None = None) -> dict:
    """One named build; KeyError naming the builds that exist."""
    data = load(op, path)
    if data is None:
        raise KeyError(f"no artifact for {op!r}")
    for entry in data["builds"]:
        if entry["build"] == name:
            return entry
    names = [entry["build"] for entry in data["builds"]]
    raise KeyError(f"{op} has no build {name!r}; builds: {names}")


def find_build(op: str, name: str, path: Path | None = None) -> dict | None:
    """One named build, None when the artifact or the build is absent (for
    prose that says "not compiled yet" instead of failing)."""
    data = load(op, path)
    if data is None:
        return None
    return next((entry for entry in data["builds"] if entry["build"] == name), None)


def build_names(op: str, path: Path | None = None) -> list[str]:
    data = load(op, path)
    return [] if data is None else [entry["build"] for entry in data["builds"]]


def staleness_note(op: str, path: Path | None = None, root: Path = ROOT) -> str:
    """A warning when the kernel source changed after its artifact was
    built; empty when they agree or when there is no artifact (the page's
    table then carries the "Not compiled yet" note)."""
    data = load(op, path)
    if data is None:
        return ""
    source = Path(root) / data["source"]
    if not source.is_file() or sha256_file(source) == data["source_sha256"]:
        return ""
    return (
        f'!!! warning "Stale artifact"\n    `{data["source"]}` changed after '
        "this artifact was compiled; the facts below describe the older "
        f"source. Rebuild with `python -m scripts.artifacts {op}`."
    )


def missing_note(op: str) -> str:
    return (
        f'!!! warning "Not compiled yet"\n    No artifact for `{op}`: run '
        f"`python -m scripts.artifacts {op}` to compile it for {TARGET}."
    )


def spills(entry: dict) -> int:
    """Bytes a build spills to local memory, stored plus loaded."""
    return entry["spill_store_bytes"] + entry["spill_load_bytes"]


def opcodes_text(counts: dict[str, int]) -> str:
    """`{'LDG.E.128': 8}` -> "`LDG.E.128` × 8", for prose and tables."""
    if not counts:
        return "none"
    return ", ".join(f"`{op}` × {n}" for op, n in counts.items())


# --8<-- [start:families]
#: SASS opcode families by what they do. An opcode belongs to the first
#: family whose prefix it starts with.
FAMILIES = {
    "warpgroup MMA": ("HGMMA",),  # PTX wgmma.mma_async, Hopper
    "warp MMA": ("HMMA",),  # PTX mma.sync, one warp (Ampere style)
    "async copy to shared": ("LDGSTS",),  # PTX cp.async, per thread
    "bulk tensor copy (TMA)": ("UTMALDG", "UTMASTG", "UBLKCP"),  # cp.async.bulk
    "global load": ("LDG.",),
    "global store": ("STG.",),
    "global atomic": ("ATOMG", "RED."),
    "exp2 (MUFU)": ("MUFU.EX2",),
    "block barrier": ("BAR.",),
    "mbarrier (async transaction)": ("SYNCS",),
    "warpgroup sync": ("WARPGROUP.",),
    "async-proxy fence": ("FENCE.VIEW.ASYNC",),  # PTX fence.proxy.async
}


def family_counts(sass_opcodes: dict[str, int]) -> dict[str, dict[str, int]]:
    """{family: {opcode: count}} for the families above that occur."""
    found: dict[str, dict[str, int]] = {}
    for opcode, count in sorted(sass_opcodes.items()):
        for family, prefixes in FAMILIES.items():
            if opcode.startswith(prefixes):
                found.setdefault(family, {})[opcode] = count
                break
    return found
    # --8<-- [end:families]


def stem_counts(sass_opcodes: dict[str, int], stems: tuple[str, ...]) -> dict:
    """Counts summed by opcode stem (the text before the first dot), for
    the stems asked for: {'HGMMA': 6} from two HGMMA shapes."""
    counts: dict[str, int] = {}
    for opcode, count in sass_opcodes.items():
        stem = opcode.split(".", 1)[0]
        if stem in stems:
            counts[stem] = counts.get(stem, 0) + count
    return counts


# --8<-- [start:hgmma-shape]
HGMMA_SHAPE = re.compile(r"^HGMMA\.(\d+)x(\d+)x(\d+)\.")


def hgmma_shape(opcode: str) -> tuple[int, int, int] | None:
    """(m, n, k) of one HGMMA opcode: 'HGMMA.64x256x16.F32.BF16' -> 64,
    256, 16. One instruction multiplies an m x k tile by a k x n tile."""
    match = HGMMA_SHAPE.match(opcode)
    return tuple(int(g) for g in match.groups()) if match else None
    # --8<-- [end:hgmma-shape]
