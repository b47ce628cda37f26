"""The memory-bound lessons' reading of a compiled artifact: SASS opcodes by
prefix and one table of every build.

Taught on docs/kernels/memory-bound/fusion-residual-add-relu.md and used by
the reduction and transpose lessons. The file itself is read by
evidence/artifacts.py (load, staleness, the "not compiled yet" note).
Evidence kind: compiled artifact: which instructions, registers and shared
memory the code uses, never its speed.
"""

from pathlib import Path

from evidence.artifacts import load, missing_note, opcodes_text, spills
from evidence.tables import markdown_table

#: Triton specialises an integer argument on whether it divides by 16 and on
#: nothing finer (triton/backends/compiler.py: ``arg % 16 == 0``).
TRITON_DIVISIBILITY = 16


# --8<-- [start:opcodes]
def opcodes(build: dict, *prefixes: str) -> dict[str, int]:
    """SASS opcodes that start with any prefix, with their counts in the
    code (instructions written, not instructions executed)."""
    return {
        op: n
        for op, n in sorted(build["sass_opcodes"].items())
        if op.startswith(prefixes)
    }
    # --8<-- [end:opcodes]


def builds_table(op: str, prefixes: tuple[str, ...], path: Path | None = None) -> str:
    """Markdown: every build of one kernel with the opcodes that matter."""
    data = load(op, path)
    if data is None:
        return missing_note(op)
    rows = [
        (
            f"`{entry['build']}`",
            opcodes_text(opcodes(entry, *prefixes)),
            entry["registers"],
            f"{entry['shared_bytes']:,} B",
            f"{spills(entry):,} B",
        )
        for entry in data["builds"]
    ]
    header = ["build", "memory instructions (SASS)", "registers", "shared", "spills"]
    return markdown_table(header, rows, "llrrr", escape=False)


if __name__ == "__main__":
    print(builds_table("residual_add_relu", ("LDG", "STG")))
