"""What the compiled transpose kernels do, read from their artifact.

Shown on docs/kernels/memory-bound/transpose-and-coalescing.md. Evidence
kind: compiled artifact (results/artifacts/transpose.sm_90a.json). It shows
the instructions and the shared memory of each build, never the time.
"""

from pathlib import Path

from evidence.artifacts import find_build, load, opcodes_text
from snippets.lib.kernel_artifact import opcodes

OP = "transpose"
SHARED = ("STS", "LDS", "BAR", "LDSM", "STSM")
#: PTX ISA, ldmatrix: each matrix it loads is 8 x 8 elements of 16 bits.
LDMATRIX_TILE = (8, 8)


def tile_bytes(entry: dict) -> int:
    """Bytes of one BLOCK_M x BLOCK_N tile of float32."""
    c = entry["constexprs"]
    return c["BLOCK_M"] * c["BLOCK_N"] * 4


def ldsm_users(path: Path | None = None) -> dict[str, dict[str, int]]:
    """The builds that use ldmatrix (LDSM), with their LDSM opcodes."""
    data = load(OP, path)
    users = {b["build"]: opcodes(b, "LDSM") for b in data["builds"]}
    return {name: ops for name, ops in users.items() if ops}


def global_width_is_16_bytes(entry: dict) -> bool:
    """Whether every global load and store of the build is 128 bits."""
    return all(op.endswith(".128") for op in opcodes(entry, "LDG", "STG"))


def facts(tiled="tiled-fp32", naive="naive-fp32", grouped="grouped-bf16"):
    """Every artifact value the page states, by name."""
    t, n = find_build(OP, tiled), find_build(OP, naive)
    g, t16 = find_build(OP, grouped), find_build(OP, "tiled-bf16")
    c, gc = t["constexprs"], g["constexprs"]
    users = ldsm_users()
    return {
        "naive.ldg": opcodes_text(opcodes(n, "LDG")),
        "naive.stg": opcodes_text(opcodes(n, "STG")),
        "tiled.ldg": opcodes_text(opcodes(t, "LDG")),
        "tiled.stg": opcodes_text(opcodes(t, "STG")),
        "tiled.shared-bytes": f"{t['shared_bytes']:,}",
        "tiled.shared-ops": opcodes_text(opcodes(t, *SHARED)),
        "tiled.tile": f"{c['BLOCK_M']} × {c['BLOCK_N']}",
        "tiled.xor": f"{t['ptx_opcodes'].get('xor.b32', 0)}",
        "ldsm.tile": f"{LDMATRIX_TILE[0]} × {LDMATRIX_TILE[1]}",
        "ldsm.users": "; ".join(
            f"`{name}`: {opcodes_text(ops)}" for name, ops in users.items()
        ),
        "grouped.tile": f"{gc['BLOCK_M']} × {gc['BLOCK_N']}",
        "grouped.shared-bytes": f"{g['shared_bytes']:,}",
        "grouped.shared-ratio": f"{g['shared_bytes'] / t16['shared_bytes']:g}",
        "grouped.ldg": opcodes_text(opcodes(g, "LDG")),
        "grouped.stg": opcodes_text(opcodes(g, "STG")),
        "grouped.warps": f"{g['num_warps']}",
        "grouped.registers": f"{g['registers']}",
        "grouped.spilled": f"{g['spill_store_bytes'] + g['spill_load_bytes']}",
        "grouped.min": f"{g['ptx_opcodes'].get('min.s64', 0)}",
    }


def claimed_opcodes() -> dict[str, list[str]]:
    """Per build, every opcode the page names as present (facts naive.*, tiled.*)."""
    out = {}
    for name, prefixes in (("naive-fp32", ("LDG", "STG")),
                           ("tiled-fp32", ("LDG", "STG") + SHARED)):  # fmt: skip
        entry = find_build(OP, name)
        out[name] = sorted(opcodes(entry, *prefixes)) if entry else []
    return out


if __name__ == "__main__":
    for key, value in facts().items():
        print(f"{key}: {value}")
