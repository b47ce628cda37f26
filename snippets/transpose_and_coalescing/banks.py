"""Shared-memory banks: which layouts of a tile make a warp's column read conflict.

Shown on docs/kernels/memory-bound/transpose-and-coalescing.md. Evidence
kind: pencil model. Shared memory is split into 32 banks of 4-byte words;
word w lives in bank w mod 32, and a warp's request takes as many passes as
the largest number of distinct words it asks of one bank (CUDA C++
Programming Guide, "Shared Memory" under compute capability 5.x and later).
Lanes reading the same word are served together (a broadcast).
"""

# --8<-- [start:banks]
BANKS = 32


def conflict_degree(words: list[int], banks: int = BANKS) -> int:
    """Passes a warp needs: the most distinct words it wants from one bank."""
    per_bank: dict[int, set[int]] = {}
    for word in words:
        per_bank.setdefault(word % banks, set()).add(word)
    return max(len(ws) for ws in per_bank.values())


def plain(row: int, col: int, width: int = BANKS) -> int:
    """Row-major tile, one 4-byte element per word, no gaps."""
    return row * width + col


def padded(row: int, col: int, width: int = BANKS, pad: int = 1) -> int:
    """Each row `pad` words longer than the tile: rows start in shifted banks."""
    return row * (width + pad) + col


def swizzled(row: int, col: int, width: int = BANKS) -> int:
    """Same words as plain, column index XORed with the row: each row's
    elements are permuted within the row, so no bytes are added."""
    return row * width + (col ^ (row % width))
    # --8<-- [end:banks]


LAYOUTS = {"plain": plain, "padded": padded, "swizzled": swizzled}


def column_degree(layout: str, col: int = 0, width: int = BANKS) -> int:
    """Lane r reads (r, col): a warp reading down one column of the tile."""
    place = LAYOUTS[layout]
    return conflict_degree([place(r, col, width) for r in range(width)], width)


def row_degree(layout: str, row: int = 0, width: int = BANKS) -> int:
    """Lane c reads (row, c): a warp reading along one row."""
    place = LAYOUTS[layout]
    return conflict_degree([place(row, c, width) for c in range(width)], width)


def words_used(layout: str, width: int = BANKS) -> int:
    """Words of shared memory a width x width tile occupies."""
    place = LAYOUTS[layout]
    return max(place(r, c, width) for r in range(width) for c in range(width)) + 1


def bank_table() -> str:
    """Markdown: passes per warp and shared-memory cost of each layout."""
    rows = [
        "| layout | passes, warp reads a row | passes, warp reads a column "
        "| words for a 32 × 32 float32 tile |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name in LAYOUTS:
        rows.append(
            f"| {name} | {row_degree(name)} | {column_degree(name)} "
            f"| {words_used(name):,} |"
        )
    return "\n".join(rows)


# --8<-- [start:exercise]
def exercise_answer(pad: int) -> int:
    """Passes for a warp reading a column of a 32-wide float32 tile whose
    rows are `pad` words longer."""
    words = [r * (BANKS + pad) for r in range(BANKS)]
    return conflict_degree(words)
    # --8<-- [end:exercise]


#: The paddings the exercise asks about, in words per row.
EXERCISE_PADS = (0, 1, 2, 4)


def facts() -> dict[str, str]:
    """The exercise's answers: passes per column read, by padding."""
    passes = (f"pad {pad}: {exercise_answer(pad)}" for pad in EXERCISE_PADS)
    return {"exercise.passes": ", ".join(passes), "banks": f"{BANKS}"}


if __name__ == "__main__":
    # The lesson's table; the padding exercise's answer stays in its fold.
    print(bank_table())
