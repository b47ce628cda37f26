"""The decoupled look-back model: finishes when predecessors can run,
deadlocks when every slot waits on a block that cannot start."""

import pytest

from snippets.lib.lookback import Block, look_back, run_lookback

TOTALS = [6, 11, 4, 7, 2, 5]
PREFIXES = [6, 17, 21, 28, 30, 35]


def test_look_back_adds_aggregates_until_a_prefix():
    blocks = [Block(i, t) for i, t in enumerate(TOTALS)]
    blocks[0].flag, blocks[0].prefix = "P", 6
    blocks[1].flag = blocks[2].flag = "A"
    assert look_back(blocks, blocks[3]) == 6 + 11 + 4
    blocks[2].flag = "X"
    assert look_back(blocks, blocks[3]) is None  # must wait on block 2
    assert look_back(blocks, blocks[0]) == 0


@pytest.mark.parametrize("slots", [1, 2, 3, 6], ids=lambda s: f"slots={s}")
def test_in_order_start_always_finishes(slots):
    run = run_lookback(TOTALS, slots, list(range(6)), tickets=False)
    assert run.finished and run.prefixes == PREFIXES


def test_reversed_start_deadlocks_without_tickets():
    run = run_lookback(TOTALS, 3, [5, 4, 3, 2, 1, 0], tickets=False)
    assert not run.finished
    assert run.rounds[-1] == "---AAA"
    # With a slot for every block, the same order finishes.
    assert run_lookback(TOTALS, 6, [5, 4, 3, 2, 1, 0], tickets=False).finished


def test_tickets_finish_in_any_start_order():
    for order in ([5, 4, 3, 2, 1, 0], [2, 0, 5, 1, 4, 3]):
        run = run_lookback(TOTALS, 2, order, tickets=True)
        assert run.finished and run.prefixes == PREFIXES


def test_bad_schedule_is_named():
    with pytest.raises(ValueError, match="must name each block once"):
        run_lookback(TOTALS, 2, [0, 1, 1, 2, 3, 4], tickets=False)
    with pytest.raises(ValueError, match="slots must be at least 1"):
        run_lookback(TOTALS, 0, list(range(6)), tickets=False)
