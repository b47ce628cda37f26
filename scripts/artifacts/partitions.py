"""What each warp-specialised partition of a compiled kernel does, read from
Triton's GPU IR (used by ``scripts/artifacts/build.py``).

``tl.range(..., warp_specialize=True)`` makes Triton split a loop into a
``ttg.warp_specialize`` op: a ``default`` region and ``partitionN`` regions,
each run by its own warps. Which region issues the matrix products, the
exponentials and the TMA copies is what says whether the tensor cores can
work while the softmax runs; a kernel without the op has no partitions.
"""

from __future__ import annotations

import re

_REGION = re.compile(r"^\s*(?:(default) \{|(partition\d+)\(.*\bnum_warps\((\d+)\))")
_END = ("ttg.warp_yield", "ttg.warp_return")
_MMA = re.compile(r"\b(ttng\.tc_gen5_mma|ttng\.warp_group_dot|tt\.dot)\b(.*)")


def partitions(ttgir: str) -> list[dict]:
    """One entry per region of every ``ttg.warp_specialize`` op, in program
    order: its name, its warps (None for the default region, which keeps the
    kernel's), how many exponentials and TMA copies it issues, and for each
    matrix product where its A operand lives (``"shared"`` memory,
    ``"tensor"`` memory: a P·V product reading P from tensor memory, or
    ``"registers"``: a ``tt.dot`` on a register tensor)."""
    found: list[dict] = []
    current: dict | None = None
    for line in ttgir.splitlines():
        if match := _REGION.match(line):
            name, numbered, warps = match.groups()
            current = {
                "name": name or numbered,
                "warps": int(warps) if warps else None,
                "products_a": [],
                "exp": 0,
                "tma_copies": 0,
            }
            found.append(current)
        elif current is None:
            continue
        elif line.strip().startswith(_END):
            current = None
        elif product := _MMA.search(line):
            current["products_a"].append(_where_a_lives(product.group(2)))
        else:
            current["exp"] += line.count("math.exp2 ") + line.count("math.exp ")
            current["tma_copies"] += line.count("async_tma_copy_global_to_local")
    return found


def _where_a_lives(operands: str) -> str:
    """From the op's type list (after " : "), the first operand's memory."""
    first = operands.split(" : ", 1)[-1].strip()
    if first.startswith("tensor<"):
        return "registers"
    return "tensor" if "tensor_memory" in first.split(">", 1)[0] else "shared"
