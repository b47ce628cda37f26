"""What the compiled residual-add-ReLU kernel does, read from its artifact.

Shown on docs/kernels/memory-bound/fusion-residual-add-relu.md. Evidence
kind: compiled artifact (results/artifacts/residual_add_relu.sm_90a.json).
"""

from evidence.artifacts import THREADS_PER_WARP, opcodes_text
from evidence.artifacts import find_build as build
from snippets.lib.kernel_artifact import TRITON_DIVISIBILITY, opcodes

OP = "residual_add_relu"


def elements_per_thread(entry: dict) -> int:
    threads = entry["num_warps"] * THREADS_PER_WARP
    return entry["constexprs"]["BLOCK_SIZE"] // threads


def load_width_bytes(opcode: str) -> int:
    """`LDG.E.128` -> 16 bytes; a plain `LDG.E` moves 4."""
    last = opcode.rsplit(".", 1)[-1]
    return int(last) // 8 if last.isdigit() else 4


def facts() -> dict[str, str]:
    """Values the page states by name; a page reads one as
    ``<!-- fact: snippets/fusion_residual_add_relu/compiled.py:divisibility -->``."""
    wide = load_width_bytes("LDG.E.128")
    return {
        "divisibility": str(TRITON_DIVISIBILITY),
        "wide-bits": f"{wide * 8}-bit",
        "bf16-per-wide": f"{wide // 2}",
        "wide-bytes": f"{wide} bytes",
        "narrow-bytes": f"{load_width_bytes('LDG.E')} bytes",
        **build_facts(),
    }


def build_facts(name: str = "bf16-aligned") -> dict[str, str]:
    """One build's loads, stores, add and compare, formatted for the page."""
    entry = build(OP, name)
    loads, stores = opcodes(entry, "LDG"), opcodes(entry, "STG")
    itemsize = 2 if "bf16" in entry["signature"]["x_ptr"] else 4

    def width(ops: dict[str, int]) -> str:
        return f"{sum(load_width_bytes(op) * n for op, n in ops.items())}"

    return {
        "build.threads": f"{entry['num_warps'] * THREADS_PER_WARP}",
        "build.per-thread": f"{elements_per_thread(entry)}",
        "build.loads": opcodes_text(loads),
        "build.load-bytes": width(loads),
        "build.itemsize": f"{itemsize}",
        "build.stores": opcodes_text(stores),
        "build.store-bytes": width(stores),
        "build.fadd": opcodes_text(opcodes(entry, "FADD")),
        "build.fsetp": opcodes_text(opcodes(entry, "FSETP")),
        "build.shared": f"{entry['shared_bytes']}",
    }


def claimed_opcodes(name: str = "bf16-aligned") -> list[str]:
    """Every opcode the page names (the test checks each is present)."""
    entry = build(OP, name)
    if entry is None:
        return []
    return sorted(opcodes(entry, "LDG", "STG", "FADD", "FSETP"))


if __name__ == "__main__":
    for key, value in facts().items():
        print(f"{key}: {value}")
