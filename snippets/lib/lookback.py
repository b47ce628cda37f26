"""Decoupled look-back (Merrill and Garland, 2016) as a scheduling model.

Shown on docs/reference/parallel-prefix-scan.md. Each block publishes a
flag beside its partial result: X (nothing yet), A (its own aggregate) or
P (its inclusive prefix, everything up to and including it). A block looks
back over its predecessors, adding aggregates until it reaches a P; if it
meets an X it must wait for that predecessor to publish.

The model runs rounds of a scheduler with a fixed number of resident
slots. A block keeps its slot while it waits, so whether the scan finishes
depends on which blocks the scheduler has started: that is the
forward-progress question. A CPU model of the logic only: a device's
scheduler and memory ordering are not modelled.
"""

from __future__ import annotations

# --8<-- [start:lookback-imports]
from dataclasses import dataclass, field, replace

# --8<-- [end:lookback-imports]
from evidence.tables import markdown_table

TOTALS = [6, 11, 4, 7, 2, 5]


# --8<-- [start:lookback]
@dataclass
class Block:
    ident: int  # its position in the scan, which decides its predecessors
    aggregate: int
    flag: str = "X"  # X: nothing published, A: aggregate, P: prefix
    prefix: int | None = None  # inclusive prefix, once flag is P


def look_back(blocks: list[Block], me: Block) -> int | None:
    """Sum of every predecessor, or None if one has published nothing."""
    exclusive = 0
    for pred in reversed(blocks[: me.ident]):
        if pred.flag == "X":
            return None  # must wait: spin on this predecessor's flag
        if pred.flag == "P":
            return exclusive + pred.prefix
        exclusive += pred.aggregate  # flag A: add it and keep looking
    return exclusive
    # --8<-- [end:lookback]


@dataclass
class Run:
    """What a scheduled run did, round by round."""

    finished: bool
    prefixes: list[int | None]
    rounds: list[str] = field(default_factory=list)


def round_flags(blocks: list[Block], resident: list[Block]) -> str:
    """Every block's flag after a round, "-" for one not started yet."""
    started = {b.ident for b in resident}
    started |= {b.ident for b in blocks if b.flag != "X"}
    return "".join(b.flag if b.ident in started else "-" for b in blocks)


# --8<-- [start:schedule]
def run_lookback(
    totals: list[int], slots: int, start_order: list[int], tickets: bool
) -> Run:
    """Start blocks in `start_order`, at most `slots` resident at once.

    With tickets=False a block's position in the scan is its launch index
    (like blockIdx). With tickets=True each block takes the next position
    from a counter when it starts, so every predecessor has started first.
    """
    if sorted(start_order) != list(range(len(totals))):
        raise ValueError(f"start_order must name each block once: {start_order}")
    if slots < 1:
        raise ValueError(f"slots must be at least 1, got {slots}")
    blocks = [Block(i, totals[i]) for i in range(len(totals))]
    waiting_to_start = list(start_order)
    resident: list[Block] = []
    run = Run(finished=False, prefixes=[None] * len(totals))
    next_ticket = 0
    while waiting_to_start or resident:
        while waiting_to_start and len(resident) < slots:
            launch = waiting_to_start.pop(0)
            position = next_ticket if tickets else launch
            next_ticket += 1
            resident.append(blocks[position])
        progress = False
        # Blocks in one round run at the same time: each sees the flags
        # as they stood when the round began.
        snapshot = [replace(b) for b in blocks]
        for block in list(resident):
            if block.flag == "X":  # first thing a block does: publish A
                block.flag, progress = "A", True
                continue
            before = look_back(snapshot, block)
            if before is not None:
                block.prefix = before + block.aggregate
                block.flag, progress = "P", True
                resident.remove(block)  # done: its slot frees up
        run.rounds.append(round_flags(blocks, resident))  # for the page
        if not progress:
            break  # every resident block waits on one that cannot start
    run.finished = all(b.flag == "P" for b in blocks)
    run.prefixes = [b.prefix for b in blocks]
    return run
    # --8<-- [end:schedule]


# Build-time helpers for the page: each returns Markdown.

SLOTS = 3


def schedule_table(order: str, tickets: bool, slots: int = SLOTS) -> str:
    """Flags of every block (by scan position) after each round."""
    n = len(TOTALS)
    orders = {"in order": list(range(n)), "reversed": list(range(n))[::-1]}
    if order not in orders:
        raise KeyError(f"order must be one of {sorted(orders)}, got {order!r}")
    run = run_lookback(TOTALS, slots, orders[order], tickets)
    header = ["round", *(f"block {i}" for i in range(n))]
    rows = [[k, *flags] for k, flags in enumerate(run.rounds, start=1)]
    outcome = (
        f"finished; inclusive prefixes `{run.prefixes}`"
        if run.finished
        else "no block can make progress: deadlock"
    )
    table = markdown_table(header, rows, "r" + "c" * n)
    return table + f"\n\nOutcome: {outcome}."


if __name__ == "__main__":
    for order, tickets in (
        ("in order", False),
        ("reversed", False),
        ("reversed", True),
    ):
        print(f"{order}, tickets={tickets}")
        print(schedule_table(order, tickets), end="\n\n")
