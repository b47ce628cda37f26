"""What the compiled reduction kernel does, read from its artifact.

Shown on docs/kernels/memory-bound/deterministic-reductions.md. Evidence
kind: compiled artifact (results/artifacts/reduction.sm_90a.json): which
instructions the block tree uses, and that no atomic instruction is among
them. It says nothing about speed.
"""

from evidence.artifacts import THREADS_PER_WARP, opcodes_text
from evidence.artifacts import find_build as build
from snippets.lib.kernel_artifact import opcodes

OP = "reduction"
ATOMIC_PREFIXES = ("ATOM", "RED")  # SASS atomics and reductions to memory


def facts(name: str = "fp32-aligned") -> dict[str, str]:
    """The build's warps, loads, adds, shuffles, shared-memory step, store
    and atomics, formatted for the page."""
    entry = build(OP, name)
    return {
        "warps": f"{entry['num_warps']}",
        "threads": f"{THREADS_PER_WARP}",
        "loads": opcodes_text(opcodes(entry, "LDG")),
        "fadd": f"{entry['sass_opcodes'].get('FADD', 0)}",
        "shuffles": opcodes_text(opcodes(entry, "SHFL")),
        "shared-bytes": f"{entry['shared_bytes']}",
        "shared-ops": opcodes_text(opcodes(entry, "STS", "LDS", "BAR")),
        "store": opcodes_text(opcodes(entry, "STG")),
        "atomics": opcodes_text(opcodes(entry, *ATOMIC_PREFIXES)),
    }


def claimed_opcodes(name: str = "fp32-aligned") -> list[str]:
    """Every opcode the page names as present (the test checks them)."""
    entry = build(OP, name)
    if entry is None:
        return []
    return sorted(opcodes(entry, "LDG", "FADD", "SHFL", "STS", "LDS", "BAR", "STG"))


if __name__ == "__main__":
    for key, value in facts().items():
        print(f"{key}: {value}")
