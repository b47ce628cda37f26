"""Where the generated kernel's ``pid * BLOCK_SIZE`` overflows (Qualify a
generated kernel). ``tl.program_id`` is a 32-bit integer, so every offset
the kernel computes is too; the model is the shared lesson library's
snippets/lib/int32_offsets.py.
"""

from snippets.lib.int32_offsets import first_overflowing_numel, largest_offset


def fmt_overflow(block_size: int = 1024, itemsize: int = 4) -> str:
    """The threshold as a page states it."""
    n = first_overflowing_numel(block_size)
    gib = n * itemsize / 2**30
    return f"{n:,} elements ({gib:.0f} GiB per float32 tensor)"


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "overflow": fmt_overflow(),
    }


def facts() -> dict[str, str]:
    """Every value the page states, formatted, by name."""
    return page_facts()


if __name__ == "__main__":
    # The question's given; the first size that overflows is the exercise's
    # answer and stays in its fold.
    print("largest offset at 2**31 elements:", f"{largest_offset(2**31):,}")
