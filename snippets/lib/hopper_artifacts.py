"""Readings of any kernel's compiled builds, side by side.

Taught on docs/kernels/matrix-multiplication/hopper-tensor-cores.md and used
by the attention, softmax and scan lessons. The file is read by
evidence/artifacts.py (load, staleness, the "not compiled yet" note, the
SASS families); this module turns it into the tables and sentences those
pages show. Evidence kind: compiled artifact (the compiler's output for
sm_90a, read without a GPU): instructions, registers, shared memory,
spills; never time. Every function lists whatever builds the file holds, so
a kernel version added later shows up without an edit here.
"""

from __future__ import annotations

from evidence.artifacts import (
    NOT_COMPILED,
    artifact_path,
    build,
    build_names,
    family_counts,
    load,
    missing_note,
    opcodes_text,
)
from evidence.tables import markdown_table

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
    """One clause: how many of `op`'s builds the GPU machine's Triton
    (results/artifacts/triton-<version>/) compiles to other registers or with
    spills, and how many it has not compiled. The builds themselves are listed
    once, on the Benchmarks page ("Two Tritons"), which a page links to after
    this clause."""
    first, second = load(op), load(op, artifact_path(op, triton))
    if first is None or second is None:
        return f"No Triton {triton} artifact of `{op}` is committed"
    theirs = {b["build"]: b for b in second["builds"]}
    differ = spilled = missing = 0
    for b in first["builds"]:
        other = theirs.get(b["build"])
        if other is None:
            missing += 1
            continue
        spill = other["spill_store_bytes"] + other["spill_load_bytes"]
        differ += other["registers"] != b["registers"] or bool(spill)
        spilled += bool(spill)
    total = len(first["builds"])
    text = f"The benchmark machine runs Triton {second['triton_version']}, which "
    if differ:
        share = f"all {total} of" if differ == total else f"{differ} of"
        share += " these builds" if differ == total else f" these {total} builds"
        text += f"compiles {share} to other registers"
        text += f" ({spilled} with spills)" if spilled else ""
    else:
        text += "gives the same registers for every build"
    if missing:
        text += f" and has not compiled {missing} of them yet"
    return text


def compiled_for(op: str) -> str:
    """'Triton X for sm_90a (ptxas Y)' from the artifact."""
    data = load(op)
    if data is None:
        return NOT_COMPILED
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
        return NOT_COMPILED
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
