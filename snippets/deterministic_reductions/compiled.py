"""What the compiled reduction kernel does, read from its artifact.

Shown on docs/kernels/memory-bound/deterministic-reductions.md. Evidence
kind: compiled artifact (results/artifacts/reduction.sm_90a.json): which
instructions the block tree uses, and that no atomic instruction is among
them. It says nothing about speed.
"""

from evidence.artifacts import THREADS_PER_WARP, missing_note, opcodes_text
from evidence.artifacts import find_build as build
from snippets.lib.kernel_artifact import opcodes

OP = "reduction"
ATOMIC_PREFIXES = ("ATOM", "RED")  # SASS atomics and reductions to memory


def compiled_text(name: str = "fp32-aligned") -> str:
    """One paragraph: loads, the in-thread adds, the warp shuffles, the
    shared-memory step across warps, the single store, no atomics."""
    entry = build(OP, name)
    if entry is None:
        return missing_note(OP)
    warps = entry["num_warps"]
    atomics = opcodes(entry, *ATOMIC_PREFIXES)
    return (
        f"The `{name}` build runs {warps} warps of {THREADS_PER_WARP} threads. "
        f"Each thread loads with {opcodes_text(opcodes(entry, 'LDG'))} and adds "
        f"its values with `FADD` ({entry['sass_opcodes'].get('FADD', 0)} in the "
        f"code); the warps combine lanes with {opcodes_text(opcodes(entry, 'SHFL'))}, "
        "a butterfly of register exchanges; the warps' results meet in "
        f"{entry['shared_bytes']} bytes of shared memory "
        f"({opcodes_text(opcodes(entry, 'STS', 'LDS', 'BAR'))}), one float32 per "
        f"warp; and one {opcodes_text(opcodes(entry, 'STG'))} writes the "
        "block's partial to its own slot. Atomic instructions in the SASS: "
        f"{opcodes_text(atomics)}."
    )


def claimed_opcodes(name: str = "fp32-aligned") -> list[str]:
    """Every opcode compiled_text names as present (the test checks them)."""
    entry = build(OP, name)
    if entry is None:
        return []
    return sorted(opcodes(entry, "LDG", "FADD", "SHFL", "STS", "LDS", "BAR", "STG"))


if __name__ == "__main__":
    print(compiled_text())
