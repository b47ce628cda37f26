"""The block type: Python constants take the block's dtype, pointers add
elements, scalars drive Python control flow, other blocks are refused there."""

import pytest

from scripts.practice_web import blocks
from scripts.practice_web.blocks import Block, OutsideSubset


def test_constants_take_the_blocks_dtype():
    x = blocks.arange(0, 4)
    assert (x * 2).dtype is blocks.int32 and (x * 0.5).dtype is blocks.float32
    assert (x / 2).dtype is blocks.float32  # Triton's int / int


def test_a_block_in_an_if_is_refused_and_a_scalar_is_not():
    assert bool(Block([1], (), blocks.int32))
    with pytest.raises(
        OutsideSubset, match=r"^the truth value of a block of shape \[4\]"
    ):
        bool(blocks.arange(0, 4) < 2)


def test_arange_needs_a_power_of_two():
    with pytest.raises(ValueError, match="power of 2"):
        blocks.arange(0, 6)
