"""Both scans of the counts, the look-back walk, schedules, bytes, answers."""

import re
from itertools import accumulate
from pathlib import Path

import pytest

from snippets.lib.scan_carries import COUNTS
from snippets.prefix_scans_across_blocks import carries

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("block", [1, 2, 3, 4, 5, 6, 7])
def test_three_passes_equal_the_plain_scan_for_any_block(block):
    assert carries.three_passes(COUNTS, block)["out"] == list(accumulate(COUNTS))


def test_worked_passes_by_hand():
    p = carries.three_passes(COUNTS, 2)
    assert p["totals"] == [3, 3, 4] and p["scanned"] == [3, 6, 10]
    assert p["carries"] == [0, 3, 6]
    assert carries.facts()["exclusive"] == "`[0, 3, 3, 5, 6, 6]`"
    assert (
        "| 2 | `[0, 4]` | 4 | 10 | 6 | `[0, 4]` | `[6, 10]` |" in carries.passes_table()
    )


def test_look_back_walks_aggregates_until_a_prefix_and_waits_on_not_ready():
    w = carries.worked_look_back()
    assert (w["exclusive"], w["prefix"]) == (6, 10)
    assert len(w["steps"]) == 2
    states = [(carries.PREFIX, 3), (carries.NOT_READY, 0)]
    assert carries.look_back(states, 2)[0] is None
    assert carries.look_back([], 0) == (0, [])
    assert carries.facts()["lookback.prefix"] == "10"


def test_schedules_deadlock_without_tickets_and_finish_with_them():
    assert not carries.schedule(COUNTS, 2, 2, tickets=False).finished
    run = carries.schedule(COUNTS, 2, 2, tickets=True)
    assert run.finished and run.prefixes == [3, 6, 10]
    assert carries.facts()["schedule.ticket.prefixes"] == "`[3, 6, 10]`"


def test_bytes_and_the_kernel_tiles():
    n = 10_000
    assert carries.bytes_three_pass(n, 4, 1000) == 3 * n * 4 + 16 * 10
    assert carries.bytes_single_pass(n, 4, 4096) == 2 * n * 4 + 32 * 3
    assert carries.facts()["bytes.ratio"] == "1.500"
    source = (ROOT / "kernels" / "scan" / "versions.py").read_text()
    assert re.search(rf"^BLOCK_SIZE = {carries.V1_BLOCK}$", source, re.M)
    assert re.search(rf"^SINGLE_PASS_BLOCK = {carries.V2_BLOCK}$", source, re.M)


def test_exercises_by_hand():
    a = carries.exercise(COUNTS, 4)
    assert a == {"totals": [6, 4], "carries": [0, 6], "out": [3, 3, 5, 6, 6, 10]}
    facts = carries.facts()
    assert facts["exercise.block"] == "4"
    assert (facts["exercise2.exclusive"], facts["exercise2.prefix"]) == ("6", "10")
    # The page says it never reads blocks 0 and 1.
    assert facts["exercise2.steps"].endswith("block 2: prefix 5, sum 6")
    assert "block 1" not in facts["exercise2.steps"]
    assert facts["exercise2.unread"] == "0 and 1"
    assert (facts["exercise2.published"], facts["exercise2.aggregates"]) == (
        "0 to 2",
        "3 and 4",
    )
    assert facts["exercise2.block"] == "5"


def test_protocol_facts_read_the_artifact():
    facts = carries.facts()
    assert (facts["protocol.ticket"], facts["protocol.publish"]) == ("1", "2")


def test_figure_draws_three_rows_of_cells():
    fig = carries.carries_figure()
    assert len(fig.axes[0].patches) == 3 * len(COUNTS)
    labels = [t.get_text() for t in fig.axes[0].texts]
    assert "block 2, carry 6" in labels and "10" in labels


def test_the_look_back_order_changes_the_float32_carry():
    # Same three totals, two orders of addition: the bits differ, which is
    # why the single pass is not repeatable run to run.
    early, late = carries.carry_two_ways([carries.f32(t) for t in carries.CARRY_TOTALS])
    assert early != late
    assert early == carries.f32(1.0 + 2**-23) and late == 1.0
    # Integers (the counts) add the same either way.
    assert carries.carry_two_ways([3, 1, 5]) == (9.0, 9.0)
    facts = carries.facts()
    assert facts["carry.early"] != facts["carry.late"]


def test_the_page_names_an_acquire_read_not_a_volatile_load():
    page = ROOT / "docs" / "kernels" / "attention" / "prefix-scans-across-blocks.md"
    text = page.read_text()
    protocol = text[text.index("shows the protocol in instructions") :][:700]
    assert "volatile" not in protocol and "acquire" in protocol
