"""The on-ramp's model: which program owns which element."""

import pytest

from snippets.triton_on_ramp import blocks


def test_the_grid_rounds_up_and_the_last_block_is_cut():
    assert blocks.programs(1000, 128) == 8
    assert blocks.owned(7, 1000, 128) == range(896, 1000)
    assert blocks.masked_off(1000, 128) == 24
    assert blocks.masked_off(1024, 128) == 0


def test_every_element_has_exactly_one_owner():
    for n, block in [(1, 128), (255, 64), (1000, 128), (4099, 256)]:
        seen = [i for pid in range(blocks.programs(n, block))
                for i in blocks.owned(pid, n, block)]  # fmt: skip
        assert seen == list(range(n))


def test_a_floor_divided_grid_drops_the_tail():
    assert blocks.unwritten_with_floor_grid(4099, 256) == range(4096, 4099)
    assert len(blocks.unwritten_with_floor_grid(4096, 256)) == 0


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="at least 1"):
        blocks.programs(0, 128)


def test_the_figure_and_facts():
    assert blocks.blocks_figure().axes
    facts = blocks.facts()
    assert facts["exercise.owned"] == "1,792 to 2,047"
    assert facts["exercise.unwritten"] == "4,096 to 4,098"
