"""What the compiled residual-add-ReLU kernel does, read from its artifact.

Shown on docs/kernels/memory-bound/fusion-residual-add-relu.md. Evidence
kind: compiled artifact (results/artifacts/residual_add_relu.sm_90a.json).
"""

from evidence.artifacts import THREADS_PER_WARP, missing_note, opcodes_text
from evidence.artifacts import find_build as build
from snippets.lib.kernel_artifact import opcodes

OP = "residual_add_relu"


def elements_per_thread(entry: dict) -> int:
    threads = entry["num_warps"] * THREADS_PER_WARP
    return entry["constexprs"]["BLOCK_SIZE"] // threads


def load_width_bytes(opcode: str) -> int:
    """`LDG.E.128` -> 16 bytes; a plain `LDG.E` moves 4."""
    last = opcode.rsplit(".", 1)[-1]
    return int(last) // 8 if last.isdigit() else 4


#: Triton specialises an integer argument on whether it divides by 16 and on
#: nothing finer (triton/backends/compiler.py: ``arg % 16 == 0``).
TRITON_DIVISIBILITY = 16


def facts() -> dict[str, str]:
    """Values the page states by name; a page reads one as
    ``<!-- fact: snippets/fusion_residual_add_relu/compiled.py:divisibility -->``."""
    wide = load_width_bytes("LDG.E.128")
    return {
        "divisibility": str(TRITON_DIVISIBILITY),
        "wide-bits": f"{wide * 8}-bit",
        "bf16-per-wide": f"{wide // 2}",
    }


def width_text(opcode: str) -> str:
    """The bytes one instruction of `opcode` moves per thread, for prose."""
    return f"{load_width_bytes(opcode)} bytes"


def compiled_text(name: str = "bf16-aligned") -> str:
    """One paragraph on one build: loads, stores, the add, the select."""
    entry = build(OP, name)
    if entry is None:
        return missing_note(OP)
    per_thread = elements_per_thread(entry)
    loads = opcodes(entry, "LDG")
    stores = opcodes(entry, "STG")
    itemsize = 2 if "bf16" in entry["signature"]["x_ptr"] else 4
    load_bytes = sum(load_width_bytes(op) * n for op, n in loads.items())
    store_bytes = sum(load_width_bytes(op) * n for op, n in stores.items())
    return (
        f"In the `{name}` build each of the {entry['num_warps'] * THREADS_PER_WARP} "
        f"threads handles {per_thread} elements. Its global loads are "
        f"{opcodes_text(loads)}: {load_bytes} bytes per thread, which is "
        f"{per_thread} elements of {itemsize} bytes from each of two inputs. "
        f"Its stores are {opcodes_text(stores)}: {store_bytes} bytes, the "
        f"{per_thread} outputs. Between them sit "
        f"{opcodes_text(opcodes(entry, 'FADD'))} "
        f"and the ReLU's compare {opcodes_text(opcodes(entry, 'FSETP'))}; no "
        "instruction writes the sum anywhere but a register, and the build uses "
        f"{entry['shared_bytes']} bytes of shared memory."
    )


def claimed_opcodes(name: str = "bf16-aligned") -> list[str]:
    """Every opcode compiled_text names (the test checks each is present)."""
    entry = build(OP, name)
    if entry is None:
        return []
    return sorted(opcodes(entry, "LDG", "STG", "FADD", "FSETP"))


if __name__ == "__main__":
    print(compiled_text())
