"""What the compiled transpose kernels do, read from their artifact.

Shown on docs/kernels/memory-bound/transpose-and-coalescing.md. Evidence
kind: compiled artifact (results/artifacts/transpose.sm_90a.json). It shows
the instructions and the shared memory of each build, never the time.
"""

from pathlib import Path

from evidence.artifacts import find_build, load, missing_note, opcodes_text
from snippets.lib.kernel_artifact import opcodes

OP = "transpose"
SHARED = ("STS", "LDS", "BAR", "LDSM", "STSM")


def tile_bytes(entry: dict) -> int:
    """Bytes of one BLOCK_M x BLOCK_N tile of float32."""
    c = entry["constexprs"]
    return c["BLOCK_M"] * c["BLOCK_N"] * 4


def compiled_text(tiled: str = "tiled-fp32", naive: str = "naive-fp32") -> str:
    """Sentences comparing the two builds, generated from the numbers."""
    t, n = find_build(OP, tiled), find_build(OP, naive)
    if t is None or n is None:
        return missing_note(OP)
    extra = t["shared_bytes"] - tile_bytes(t)
    xors = t["ptx_opcodes"].get("xor.b32", 0)
    return (
        f"The naive build (`{naive}`) loads with {opcodes_text(opcodes(n, 'LDG'))} "
        f"and stores with {opcodes_text(opcodes(n, 'STG'))}: four bytes per "
        "store instruction, each lane's store a column step away from its "
        f"neighbour's. The tiled build (`{tiled}`) loads with "
        f"{opcodes_text(opcodes(t, 'LDG'))} and stores with "
        f"{opcodes_text(opcodes(t, 'STG'))}, sixteen bytes each on both sides. "
        f"Between them the tile goes through {t['shared_bytes']:,} bytes of "
        f"shared memory ({opcodes_text(opcodes(t, *SHARED))}), "
        + (
            "exactly one "
            f"{t['constexprs']['BLOCK_M']} × {t['constexprs']['BLOCK_N']} float32 "
            "tile: no padding. "
            if extra == 0
            else f"{extra:,} bytes more than the tile: padding. "
        )
        + f"The PTX computes shared addresses with `xor.b32` × {xors}, the "
        "signature of a swizzled layout rather than a padded one."
    )


def ldsm_text(path: Path | None = None) -> str:
    """Whether any build uses ldmatrix (LDSM), from the artifact (or the
    file at `path`)."""
    data = load(OP, path)
    if data is None:
        return missing_note(OP)
    users = {b["build"]: opcodes(b, "LDSM") for b in data["builds"]}
    users = {name: ops for name, ops in users.items() if ops}
    if not users:
        names = ", ".join(f"`{b['build']}`" for b in data["builds"])
        return (
            f"No build in this artifact ({names}) uses `LDSM`, the SASS form of "
            "`ldmatrix`: they are float32 builds, and `ldmatrix` moves 16-bit "
            "elements. A bf16 build is where to look for it."
        )
    transposing = any(".MT" in op for ops in users.values() for op in ops)
    return (
        "Builds using `LDSM`, the SASS form of `ldmatrix`: "
        + "; ".join(f"`{name}`: {opcodes_text(ops)}" for name, ops in users.items())
        + "."
        + (
            " The `.MT` form is `ldmatrix` with `.trans`: it reads 8 × 8 tiles "
            "of 16-bit elements from shared memory and transposes them on the "
            "way into registers, so the hardware does the transposition."
            if transposing
            else ""
        )
    )


def grouped_text(grouped: str = "grouped-bf16", tiled: str = "tiled-bf16") -> str:
    """Sentences on version 3's build against version 2's, from the numbers."""
    g, t = find_build(OP, grouped), find_build(OP, tiled)
    if g is None or t is None:
        return missing_note(OP)
    c = g["constexprs"]
    spilled = g["spill_store_bytes"] + g["spill_load_bytes"]
    wide = all(op.endswith(".128") for op in opcodes(g, "LDG", "STG"))
    width = (
        "keeps every global access sixteen bytes wide"
        if wide
        else ("does not keep every global access sixteen bytes wide")
    )
    return (
        f"The grouped build (`{grouped}`) stages its {c['BLOCK_M']} × "
        f"{c['BLOCK_N']} tile in {g['shared_bytes']:,} bytes of shared memory, "
        f"{g['shared_bytes'] / t['shared_bytes']:g} times version 2's "
        f"(`{tiled}`), and {width}: "
        f"{opcodes_text(opcodes(g, 'LDG'))} and {opcodes_text(opcodes(g, 'STG'))} "
        f"a thread, at {g['num_warps']} warps and {g['registers']} registers "
        f"({spilled} bytes spilled). The grouped order itself is a few integer "
        f"operations on the program id, once per program: a `min.s64` "
        f"(× {g['ptx_opcodes'].get('min.s64', 0)}) for the short last group "
        "among them."
    )


def claimed_opcodes() -> dict[str, list[str]]:
    """Per build, every opcode compiled_text names as present."""
    out = {}
    for name, prefixes in (("naive-fp32", ("LDG", "STG")),
                           ("tiled-fp32", ("LDG", "STG") + SHARED)):  # fmt: skip
        entry = find_build(OP, name)
        out[name] = sorted(opcodes(entry, *prefixes)) if entry else []
    return out


if __name__ == "__main__":
    print(compiled_text())
    print(ldsm_text())
    print(grouped_text())
