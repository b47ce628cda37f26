"""Blocks per SM, recomputed by hand for compute capability 9.0."""

import pytest

from snippets.interview_occupancy import answer as a


def test_the_worked_kernel_is_register_limited():
    limits = a.blocks_per_sm(256, 128, 48 * 1024)
    # 128 * 32 = 4096 registers a warp, 8 warps a block: 65536 / 32768 = 2.
    assert limits.by_registers == 2
    assert limits.by_shared == (228 * 1024) // (49 * 1024) == 4
    assert limits.by_threads == 8 and limits.blocks == 2
    assert a.occupancy(256, 128, 48 * 1024) == 0.25


def test_one_more_register_rounds_up_a_whole_unit():
    # 129 * 32 = 4128, rounded to 4352: 16384 // 4352 = 3 warps in each of
    # the four quarters of the register file, 12 warps: one block of 8.
    assert a.blocks_per_sm(256, 129, 48 * 1024).by_registers == 1


@pytest.mark.parametrize("blocks, registers", [(3, 80), (4, 64)])
def test_most_registers_for(blocks, registers):
    assert a.most_registers_for(blocks) == registers
    assert a.blocks_per_sm(256, registers + 1, 48 * 1024).blocks < blocks


def test_facts_name_the_limiter():
    assert a.facts()["answer.limiter"] == "registers"
    assert a.facts()["answer.occupancy"] == "25.0%"
