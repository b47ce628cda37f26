"""Prefix-scan carries: where each item writes its variable-length output.

Shown on docs/projects/work-mapping.md and
docs/interview/overlapping-output-ranges.md. Item k emits counts[k] values
into one packed output, starting at the exclusive prefix sum of the counts
before it. When the counts are split across blocks, each block can only
scan its own counts; the carry (the sum of every earlier block's counts)
turns its local offsets into global ones. A CPU model: it checks ownership
of output ranges, not the barrier or the ordering a device needs to pass
the carries between blocks.
"""

from __future__ import annotations

from evidence.tables import markdown_table

COUNTS = [3, 0, 2, 1, 0, 4]
BLOCK_SIZE = 3


# --8<-- [start:local-scan]
def split_blocks(counts: list[int], block_size: int) -> list[list[int]]:
    """Consecutive chunks of `block_size` counts (the last may be short)."""
    if block_size < 1:
        raise ValueError(f"block_size must be at least 1, got {block_size}")
    if any(count < 0 for count in counts):
        raise ValueError(f"counts must be non-negative, got {counts}")
    starts = range(0, len(counts), block_size)
    return [counts[start : start + block_size] for start in starts]


def exclusive_scan(values: list[int]) -> list[int]:
    """Sum of everything before each position: [3, 0, 2] -> [0, 3, 3]."""
    running, out = 0, []
    for value in values:
        out.append(running)
        running += value
    return out


def local_offsets(blocks: list[list[int]]) -> list[list[int]]:
    """What each block computes on its own: a scan of its counts."""
    return [exclusive_scan(block) for block in blocks]
    # --8<-- [end:local-scan]


# --8<-- [start:carries]
def block_totals(blocks: list[list[int]]) -> list[int]:
    return [sum(block) for block in blocks]


def block_carries(blocks: list[list[int]]) -> list[int]:
    """Block b starts where all earlier blocks' outputs end."""
    return exclusive_scan(block_totals(blocks))


def global_offsets(blocks: list[list[int]]) -> list[int]:
    """Local offset plus the block's carry, flattened back to items."""
    carries = block_carries(blocks)
    return [
        carry + offset
        for carry, offsets in zip(carries, local_offsets(blocks), strict=True)
        for offset in offsets
    ]


def offsets_missing_carry(blocks: list[list[int]]) -> list[int]:
    """Deliberately broken: every block's scan used as if it were global."""
    return [offset for offsets in local_offsets(blocks) for offset in offsets]
    # --8<-- [end:carries]


# --8<-- [start:ownership]
def write_ranges(
    counts: list[int],
    offsets: list[int],
) -> list[tuple[int, int]]:
    """Half-open output range [start, stop) that each item writes."""
    if len(counts) != len(offsets):
        n_counts, n_offsets = len(counts), len(offsets)
        raise ValueError(f"{n_counts} counts but {n_offsets} offsets")
    pairs = zip(offsets, counts, strict=True)
    return [(start, start + count) for start, count in pairs]


def slot_writers(ranges: list[tuple[int, int]], size: int) -> list[list[int]]:
    """For every output slot, the items that write it."""
    writers: list[list[int]] = [[] for _ in range(size)]
    for item, (start, stop) in enumerate(ranges):
        for slot in range(start, stop):
            if not 0 <= slot < size:
                raise IndexError(f"item {item} writes slot {slot} of {size}")
            writers[slot].append(item)
    return writers


def overlapping_items(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Pairs of items whose write ranges share at least one slot."""
    return [
        (a, b)
        for a, (start_a, stop_a) in enumerate(ranges)
        for b, (start_b, stop_b) in enumerate(ranges)
        if a < b and max(start_a, start_b) < min(stop_a, stop_b)
    ]


def check_ownership(ranges: list[tuple[int, int]], size: int) -> None:
    """Every slot of the output written by exactly one item, or raise."""
    writers = slot_writers(ranges, size)
    shared = [slot for slot, items in enumerate(writers) if len(items) > 1]
    orphans = [slot for slot, items in enumerate(writers) if not items]
    if shared or orphans:
        raise AssertionError(
            f"slots written more than once: {shared}; "
            f"slots never written: {orphans}; "
            f"overlapping items: {overlapping_items(ranges)}"
        )
    # --8<-- [end:ownership]


# Build-time helpers for the pages: each returns Markdown.


def _code(value: object) -> str:
    """Arrays as inline code, single numbers as plain text."""
    return str(value) if isinstance(value, int) else f"`{value}`"


def blocks_table(counts: list[int] = COUNTS, block_size: int = BLOCK_SIZE) -> str:
    """One row per block: its counts, local offsets, total and carry."""
    blocks = split_blocks(counts, block_size)
    header = [
        "block",
        "counts",
        "local offsets",
        "total",
        "carry",
        "offsets with carry",
    ]
    rows = []
    flat = global_offsets(blocks)
    start = 0
    for b, (block, local, total, carry) in enumerate(
        zip(
            blocks,
            local_offsets(blocks),
            block_totals(blocks),
            block_carries(blocks),
            strict=True,
        )
    ):
        mine = flat[start : start + len(block)]
        start += len(block)
        rows.append((b, _code(block), _code(local), total, carry, _code(mine)))
    return markdown_table(header, rows, "rllrrl", escape=False)


def ranges_table(counts: list[int] = COUNTS, block_size: int = BLOCK_SIZE) -> str:
    """One row per item: its write range without and with the carry."""
    blocks = split_blocks(counts, block_size)
    broken = write_ranges(counts, offsets_missing_carry(blocks))
    fixed = write_ranges(counts, global_offsets(blocks))
    header = ["item", "block", "count", "range without carry", "range with carry"]
    rows = [
        (item, item // block_size, count, _range(broken[item]), _range(fixed[item]))
        for item, count in enumerate(counts)
    ]
    return markdown_table(header, rows, "rrrll", escape=False)


def _range(bounds: tuple[int, int]) -> str:
    start, stop = bounds
    return f"`[{start}, {stop})`" + (" (empty)" if start == stop else "")


def writers_table(counts: list[int] = COUNTS, block_size: int = BLOCK_SIZE) -> str:
    """For each output slot, which items write it, without and with the
    carry."""
    blocks = split_blocks(counts, block_size)
    size = sum(counts)
    columns = [
        slot_writers(write_ranges(counts, offsets), size)
        for offsets in (offsets_missing_carry(blocks), global_offsets(blocks))
    ]
    header = ["output slot", "written by, without carry", "written by, with carry"]
    rows = [
        [slot]
        + [
            ", ".join(f"item {item}" for item in writers[slot]) or "nobody"
            for writers in columns
        ]
        for slot in range(size)
    ]
    return markdown_table(header, rows, "rll")


#: The exercise's block size: the same counts split into blocks of two.
EXERCISE_BLOCK_SIZE = 2


def facts() -> dict[str, str]:
    """Every array or figure the pages state, as inline code, by name: the
    example's (`carries`) and the exercise's, with blocks of
    EXERCISE_BLOCK_SIZE items (`exercise.carries`)."""
    exercise = example_values(COUNTS, EXERCISE_BLOCK_SIZE)
    return {
        **example_values(COUNTS, BLOCK_SIZE),
        **{f"exercise.{name}": text for name, text in exercise.items()},
    }


def example_values(counts: list[int], block_size: int) -> dict[str, str]:
    """The example's arrays and figures for these counts and block size."""
    blocks = split_blocks(counts, block_size)
    broken = write_ranges(counts, offsets_missing_carry(blocks))
    fixed = write_ranges(counts, global_offsets(blocks))
    values = {
        "counts": counts,
        "block_size": block_size,
        "blocks": blocks,
        "block_count": len(blocks),
        "local_offsets": local_offsets(blocks),
        "totals": block_totals(blocks),
        "carries": block_carries(blocks),
        "global_offsets": global_offsets(blocks),
        "offsets_missing_carry": offsets_missing_carry(blocks),
        "output_size": sum(counts),
        "overlaps_without_carry": overlapping_items(broken),
        "overlaps_with_carry": overlapping_items(fixed),
        "global_scan": exclusive_scan(counts),
    }
    return {name: _code(item) for name, item in values.items()}


def check_message(counts: list[int] = COUNTS, block_size: int = BLOCK_SIZE) -> str:
    """The error `check_ownership` raises on the missing-carry offsets."""
    blocks = split_blocks(counts, block_size)
    ranges = write_ranges(counts, offsets_missing_carry(blocks))
    try:
        check_ownership(ranges, sum(counts))
    except AssertionError as error:
        return f"`AssertionError: {error}`"
    raise AssertionError("the missing-carry offsets passed the ownership check")


# --8<-- [start:carries-figure]
def carries_figure(counts: list[int] = COUNTS, block_size: int = BLOCK_SIZE):
    """A diagram: each item's write range on the output line, with the
    carry (top) and without it (bottom); items coloured by block."""
    from matplotlib.patches import Rectangle

    from snippets.lib.diagrams import ACCENT, INK, MUTED, SECOND, figure

    blocks = split_blocks(counts, block_size)
    size = sum(counts)
    colours = [ACCENT, SECOND, MUTED]
    fig = figure(6.5, 2.6)
    ax = fig.add_axes((0.2, 0.05, 0.78, 0.9))
    ax.set_axis_off()
    ax.set_xlim(0, size)
    ax.set_ylim(-0.3, 2.4)
    rows = (("with carries", global_offsets(blocks), 1.3),
            ("without", offsets_missing_carry(blocks), 0.1))  # fmt: skip
    for label, offsets, y in rows:
        ax.text(-0.3, y + 0.35, label, ha="right", va="center", color=INK)
        ax.add_patch(Rectangle((0, y), size, 0.7, fill=False, edgecolor=INK))
        item = 0
        for b, block in enumerate(blocks):
            for count in block:
                start = offsets[item]
                if count:
                    ax.add_patch(
                        Rectangle(
                            (start, y + 0.08 * b),
                            count,
                            0.7 - 0.16 * b,
                            facecolor=colours[b % 3],
                            alpha=0.8,
                            edgecolor=INK,
                            linewidth=0.6,
                        )
                    )
                    ax.text(
                        start + count / 2,
                        y + 0.2 + 0.3 * (b % 2),
                        f"item {item}",
                        ha="center",
                        va="center",
                        color=INK,
                    )
                item += 1
    carries = block_carries(blocks)
    ax.text(
        0,
        2.2,
        "block carries " + str(carries) + "; slots 0.." + str(size - 1),
        color=INK,
    )
    return fig  # fmt: skip
    # --8<-- [end:carries-figure]


def indented(table: str, spaces: int) -> str:
    """One of this module's tables, for a page that places it inside an
    indented block (an admonition or a collapsible answer): the hook keeps
    the placeholder's indent on the first line only."""
    tables = {
        "blocks": blocks_table,
        "ranges": ranges_table,
        "writers": writers_table,
        "check": check_message,
    }
    if table not in tables:
        raise KeyError(f"table must be one of {sorted(tables)}, got {table!r}")
    first, *rest = tables[table]().split("\n")
    pad = " " * spaces
    return "\n".join([first, *(pad + line if line else line for line in rest)])


if __name__ == "__main__":
    # The exercise's givens and what each block computes on its own; the
    # carries and the collision are its answer and stay in the fold.
    blocks = split_blocks(COUNTS, BLOCK_SIZE)
    print(f"counts: {COUNTS}, {BLOCK_SIZE} items per block")
    for number, (block, local) in enumerate(
        zip(blocks, local_offsets(blocks), strict=True)
    ):
        print(
            f"block {number}: counts {block}, offsets scanned within the block {local}"
        )
