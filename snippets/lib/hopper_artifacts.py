"""Read any kernel's compiled builds from results/artifacts/<op>.sm_90a.json.

Shown on docs/kernels/matrix-multiplication/hopper-tensor-cores.md and used
by the attention and scan lessons. Evidence kind: compiled artifact (the
compiler's output for sm_90a, read without a GPU): instructions, registers,
shared memory, spills; never time. Every function lists whatever builds the
file holds, so a kernel version added later shows up without an edit here.
A missing file gives a "not compiled yet" note; a file without the fields
read here raises, naming the file and the field, so the site build fails.
"""

from __future__ import annotations

import json
from hashlib import sha256
from pathlib import Path

from evidence.tables import markdown_table

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "results" / "artifacts"

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


class ArtifactError(ValueError):
    """The artifact exists but lacks what these functions read."""


_FIELDS = {
    "build": str,
    "num_warps": int,
    "num_stages": int,
    "registers": int,
    "shared_bytes": int,
    "spill_store_bytes": int,
    "spill_load_bytes": int,
    "sass_opcodes": dict,
    "ptx_opcodes": dict,
}


def artifact_path(op: str, triton: str | None = None) -> Path:
    """The committed artifact of `op`; `triton='3.6'` for the GPU machine's
    compiler, under results/artifacts/triton-3.6/."""
    folder = ARTIFACTS if triton is None else ARTIFACTS / f"triton-{triton}"
    return folder / f"{op}.sm_90a.json"


def load(op: str, path: Path | None = None) -> dict | None:
    """The artifact as a dict (every build checked), None when absent."""
    path = Path(path or artifact_path(op))
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ArtifactError(f"{path}: not valid JSON: {exc}") from exc
    for field in ("source", "source_sha256", "triton_version", "builds"):
        if field not in data:
            raise ArtifactError(f"{path}: missing field {field!r}")
    for index, build in enumerate(data["builds"]):
        for field, kind in _FIELDS.items():
            if not isinstance(build.get(field), kind):
                raise ArtifactError(
                    f"{path}: builds[{index}] lacks {field!r} (a {kind.__name__})"
                )
    return data


def missing_note(op: str) -> str:
    return (
        f'!!! warning "Not compiled yet"\n    No artifact for `{op}`: run '
        f"`python -m scripts.artifacts {op}` to compile it for sm_90a."
    )


def build(op: str, name: str, path: Path | None = None) -> dict:
    """One named build; KeyError naming the builds that exist."""
    data = load(op, path)
    if data is None:
        raise KeyError(f"no artifact for {op!r}")
    for candidate in data["builds"]:
        if candidate["build"] == name:
            return candidate
    names = [b["build"] for b in data["builds"]]
    raise KeyError(f"{op} has no build {name!r}; builds: {names}")


def build_names(op: str, path: Path | None = None) -> list[str]:
    data = load(op, path)
    return [] if data is None else [b["build"] for b in data["builds"]]


def staleness_note(op: str, path: Path | None = None) -> str:
    """A warning when kernels/<op>.py changed after its artifact was built;
    empty when they agree or when there is no artifact."""
    data = load(op, path)
    if data is None:
        return ""
    source = ROOT / data["source"]
    if not source.exists() or (
        sha256(source.read_bytes()).hexdigest() == data["source_sha256"]
    ):
        return ""
    return (
        f'!!! warning "Stale artifact"\n    `{data["source"]}` changed after '
        "this artifact was compiled; the facts below describe the older "
        f"source. Rebuild with `python -m scripts.artifacts {op}`."
    )


def opcodes_text(counts: dict[str, int]) -> str:
    if not counts:
        return "none"
    return ", ".join(f"`{op}` × {n}" for op, n in counts.items())


COLUMNS = {
    "warps": ("warps", lambda b: str(b["num_warps"])),
    "stages": ("stages", lambda b: str(b["num_stages"])),
    "registers": ("registers per thread", lambda b: str(b["registers"])),
    "shared": ("shared memory", lambda b: f"{b['shared_bytes'] / 1024:g} KiB"),
    "spills": (
        "spills (stored + loaded)",
        lambda b: f"{b['spill_store_bytes'] + b['spill_load_bytes']:,} bytes",
    ),
}


# --8<-- [start:side-by-side]
def side_by_side(op: str, families: tuple[str, ...], resources=("registers",)):
    """Markdown: one row per build of `op`, the chosen instruction
    families (counts of instructions in the code, not executions) and
    resources. Lists whatever builds the artifact holds."""
    data = load(op)
    if data is None:
        return missing_note(op)
    header = ["build", *families, *(COLUMNS[r][0] for r in resources)]
    rows = []
    for b in data["builds"]:
        found = family_counts(b["sass_opcodes"])
        rows.append(
            [f"`{b['build']}`"]
            + [opcodes_text(found.get(family, {})) for family in families]
            + [COLUMNS[r][1](b) for r in resources]
        )
    align = "l" * (1 + len(families)) + "r" * len(resources)
    return markdown_table(header, rows, align, escape=False)
    # --8<-- [end:side-by-side]


def ptx_side_by_side(op: str, names: tuple[str, ...], prefixes: tuple[str, ...]):
    """Markdown: the PTX instructions starting with `prefixes`, one column
    per named build (a name the artifact lacks is skipped)."""
    data = load(op)
    if data is None:
        return missing_note(op)
    builds = [b for b in data["builds"] if b["build"] in names]
    opcodes = sorted(
        {o for b in builds for o in b["ptx_opcodes"] if o.startswith(prefixes)}
    )
    rows = [
        [f"`{o}`", *(str(b["ptx_opcodes"].get(o, "—")) for b in builds)]
        for o in opcodes
    ]
    header = ["PTX instruction", *(f"`{b['build']}`" for b in builds)]
    return markdown_table(header, rows, "l" + "r" * len(builds), escape=False)


def second_compiler_note(op: str, triton: str = "3.6") -> str:
    """One sentence: how the GPU machine's Triton compiles the same builds
    (results/artifacts/triton-<version>/), registers and spills per build
    that differ, and builds it has not compiled."""
    first, second = load(op), load(op, artifact_path(op, triton))
    if first is None or second is None:
        return f"No Triton {triton} artifact of `{op}` is committed."
    theirs = {b["build"]: b for b in second["builds"]}
    differ, missing = [], []
    for b in first["builds"]:
        other = theirs.get(b["build"])
        if other is None:
            missing.append(f"`{b['build']}`")
            continue
        spill = other["spill_store_bytes"] + other["spill_load_bytes"]
        if other["registers"] != b["registers"] or spill:
            differ.append(
                f"`{b['build']}` {other['registers']} registers"
                + (f" and {spill:,} bytes of spills" if spill else "")
            )
    text = (
        f"The benchmark machine runs Triton {second['triton_version']}, whose "
        "artifact gives "
        + ("; ".join(differ) if differ else "the same registers for every build")
    )
    if missing:
        text += f"; it has not compiled {', '.join(missing)} yet"
    return text + "."


def compiled_for(op: str) -> str:
    """'Triton X for sm_90a (ptxas Y)' from the artifact."""
    data = load(op)
    if data is None:
        return "(not compiled yet)"
    ptxas = str(data.get("ptxas_version", ""))
    release = ptxas.split("release ")[-1].split(",")[0] if "release" in ptxas else ""
    tail = f" (ptxas {release})" if release else ""
    return f"Triton {data['triton_version']} for `{data.get('target', 'sm_90a')}`{tail}"


def fact(op: str, name: str, what: str, triton: str | None = None) -> str:
    """One number of one build, as text: 'registers', 'shared' (KiB),
    'spills' (bytes), 'warps', 'stages', or a SASS opcode prefix such as
    'MUFU.EX2' (the summed count)."""
    path = artifact_path(op, triton)
    if load(op, path) is None:
        return "(not compiled yet)"
    b = build(op, name, path)
    if what in COLUMNS:
        return COLUMNS[what][1](b).removesuffix(" bytes").removesuffix(" KiB")
    total = sum(n for o, n in b["sass_opcodes"].items() if o.startswith(what))
    return str(total)


def sass_window(op: str, name: str, needle: str, before=2, after=4) -> str:
    """A fenced block: the SASS lines around the first line containing
    `needle`; a sentence when the excerpt has none."""
    if load(op) is None:
        return missing_note(op)
    lines = build(op, name).get("sass_excerpt", [])
    first = next((i for i, line in enumerate(lines) if needle in line), None)
    if first is None:
        return f"The stored SASS excerpt of `{name}` has no `{needle}` line."
    window = lines[max(0, first - before) : first + after + 1]
    return "```text\n" + "\n".join(window) + "\n```"


if __name__ == "__main__":
    for op in ("matmul", "attention", "scan", "softmax"):
        print(op, compiled_for(op), build_names(op))
