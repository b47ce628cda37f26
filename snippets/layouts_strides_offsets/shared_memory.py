"""Shared-memory layouts: row-major, padded and XOR-swizzled, by bank.

Shown on docs/kernels/work-mapping/layouts-strides-offsets.md. A pencil
model: 32 banks of 4-byte words (CUDA C++ Programming Guide, shared memory);
a warp's accesses to different words in one bank are serialised. It counts
passes, not time.
"""

from __future__ import annotations

from evidence.tables import markdown_table
from snippets.lib.transpose_offsets import BANK_COUNT

TILE = 32  # a 32 x 32 tile of 4-byte values: one row and one column per lane


# --8<-- [start:layouts]
def row_major_word(row: int, col: int) -> int:
    return row * TILE + col


def padded_word(row: int, col: int, pad: int = 1) -> int:
    """Each row is TILE + pad words long: row r starts pad*r banks later."""
    return row * (TILE + pad) + col


def swizzled_word(row: int, col: int) -> int:
    """Same rows, no wasted words: the column is XORed with the row, so
    column c of row r lands in bank c ^ r."""
    return row * TILE + (col ^ (row % TILE))


def passes(words: list[int]) -> int:
    """Serialised passes for one warp access: the most distinct words any
    one bank must serve."""
    per_bank: dict[int, set[int]] = {}
    for word in words:
        per_bank.setdefault(word % BANK_COUNT, set()).add(word)
    return max(len(w) for w in per_bank.values())
    # --8<-- [end:layouts]


LAYOUTS = {
    "row-major": row_major_word,
    "padded by one word": padded_word,
    "XOR swizzle": swizzled_word,
}


def column_read(name: str, col: int = 0) -> int:
    fn = LAYOUTS[name]
    return passes([fn(lane, col) for lane in range(TILE)])


def row_read(name: str, row: int = 0) -> int:
    fn = LAYOUTS[name]
    return passes([fn(row, lane) for lane in range(TILE)])


def footprint(name: str) -> int:
    """Words the tile occupies."""
    fn = LAYOUTS[name]
    return max(fn(r, c) for r in range(TILE) for c in range(TILE)) + 1


def bank_table() -> str:
    header = ["layout", "row read (passes)", "column read (passes)", "words used"]
    rows = [
        (name, row_read(name), column_read(name), footprint(name)) for name in LAYOUTS
    ]
    return markdown_table(header, rows, "lrrr")


if __name__ == "__main__":
    print(bank_table())
