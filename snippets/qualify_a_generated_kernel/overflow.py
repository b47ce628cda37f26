"""Where the generated kernel's ``pid * BLOCK_SIZE`` overflows (Qualify a
generated kernel). ``tl.program_id`` is a 32-bit integer, so every offset
the kernel computes is too; the largest offset of the last program is
``cdiv(n, BLOCK_SIZE) * BLOCK_SIZE - 1``.
"""

INT32_MAX = 2**31 - 1


def largest_offset(n_elements: int, block_size: int = 1024) -> int:
    """The largest element offset any program computes, in exact integers."""
    programs = -(-n_elements // block_size)
    return programs * block_size - 1


def first_overflowing_numel(block_size: int = 1024) -> int:
    """The smallest input whose offsets no longer fit in int32."""
    low, high = 1, 2**40
    while low < high:  # the offset grows with n: bisect
        mid = (low + high) // 2
        if largest_offset(mid, block_size) > INT32_MAX:
            high = mid
        else:
            low = mid + 1
    return low


def overflow_text(block_size: int = 1024, itemsize: int = 4) -> str:
    """The threshold as a page states it."""
    n = first_overflowing_numel(block_size)
    gib = n * itemsize / 2**30
    return f"{n:,} elements ({gib:.0f} GiB per float32 tensor)"


if __name__ == "__main__":
    # The question's given; the first size that overflows is the exercise's
    # answer and stays in its fold.
    print("largest offset at 2**31 elements:", f"{largest_offset(2**31):,}")
