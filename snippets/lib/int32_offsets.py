"""Where int32 element offsets wrap past 2**31 (lesson: Kernel correctness
contracts, whose contract lists integer overflow among its cases; the
interview exercises "Fix an int32 offset overflow" and "Qualify a generated
kernel" use it).

``tl.program_id`` and ``tl.arange`` are 32-bit integers, so every offset a
kernel computes from them is too unless it is widened first. int32 arithmetic
is emulated exactly here, so a page's numbers are what a 32-bit register
would hold.
"""

INT32_MAX = 2**31 - 1


# --8<-- [start:wrap]
def as_int32(value: int) -> int:
    """What a 32-bit two's-complement register holds after `value`."""
    return (value + 2**31) % 2**32 - 2**31


def first_wrapped_lane(start: int, count: int) -> int | None:
    """The first i in range(count) whose int32 offset start + i wraps."""
    for i in range(count):
        if as_int32(start + i) != start + i:
            return i
    return None


# --8<-- [end:wrap]


def first_wrapping_program(block: int) -> int:
    """The first program id whose `pid * block` no longer fits in int32."""
    return -(-(2**31) // block)


def largest_offset(n_elements: int, block_size: int = 1024) -> int:
    """The largest element offset any program computes, in exact integers:
    ``cdiv(n, block_size) * block_size - 1``, the last program's last lane."""
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
