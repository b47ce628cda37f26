"""Prefix-scan carries: local offsets, carries and output ownership."""

import random

import pytest

from snippets.lib.scan_carries import (
    block_carries,
    check_ownership,
    exclusive_scan,
    global_offsets,
    local_offsets,
    offsets_missing_carry,
    overlapping_items,
    slot_writers,
    split_blocks,
    write_ranges,
)

COUNTS = [3, 0, 2, 1, 0, 4]


def test_carries_make_write_ranges_disjoint():
    blocks = split_blocks(COUNTS, 3)
    assert blocks == [[3, 0, 2], [1, 0, 4]]
    assert local_offsets(blocks) == [[0, 3, 3], [0, 1, 1]]
    assert block_carries(blocks) == [0, 5]
    offsets = global_offsets(blocks)
    assert offsets == [0, 3, 3, 5, 6, 6]
    ranges = write_ranges(COUNTS, offsets)
    assert ranges == [(0, 3), (3, 3), (3, 5), (5, 6), (6, 6), (6, 10)]
    assert overlapping_items(ranges) == []
    check_ownership(ranges, 10)


def test_missing_carry_produces_overlapping_writes():
    blocks = split_blocks(COUNTS, 3)
    broken = offsets_missing_carry(blocks)
    assert broken == [0, 3, 3, 0, 1, 1]
    ranges = write_ranges(COUNTS, broken)
    assert overlapping_items(ranges) == [(0, 3), (0, 5), (2, 5)]
    assert slot_writers(ranges, 10)[0] == [0, 3]
    with pytest.raises(AssertionError, match=r"written more than once: \[0, 1"):
        check_ownership(ranges, 10)


def test_carries_match_a_global_scan():
    rng = random.Random(6)
    for length in (1, 2, 7, 31):
        counts = [rng.choice([0, 0, 1, 2, 5]) for _ in range(length)]
        for block_size in (1, 2, 3, 8, 64):
            blocks = split_blocks(counts, block_size)
            assert global_offsets(blocks) == exclusive_scan(counts)
            check_ownership(write_ranges(counts, global_offsets(blocks)), sum(counts))
            # Without the carry, two blocks that both write start at slot 0:
            # the check must fail exactly then. With one writing block the
            # missing carry is zero and the bug hides.
            broken = write_ranges(counts, offsets_missing_carry(blocks))
            writing_blocks = sum(1 for block in blocks if sum(block))
            if writing_blocks >= 2:
                with pytest.raises(AssertionError):
                    check_ownership(broken, sum(counts))
            else:
                check_ownership(broken, sum(counts))


def test_carries_figure_draws_each_nonempty_item_twice():
    from snippets.lib.scan_carries import COUNTS, carries_figure

    ax = carries_figure().axes[0]
    items = sum(1 for c in COUNTS if c)
    assert len(ax.patches) == 2 + 2 * items  # two output lines, each item twice
    labels = [t.get_text() for t in ax.texts if t.get_text().startswith("item")]
    assert len(labels) == 2 * items


def test_facts_give_the_example_and_the_exercise_as_inline_code():
    from snippets.lib.scan_carries import facts

    values = facts()
    assert values["counts"] == "`[3, 0, 2, 1, 0, 4]`"
    assert values["carries"] == "`[0, 5]`"
    assert values["exercise.carries"] == "`[0, 3, 6]`"
    # The global offsets do not depend on the block size (the exercise's point).
    assert values["global_offsets"] == values["exercise.global_offsets"]
