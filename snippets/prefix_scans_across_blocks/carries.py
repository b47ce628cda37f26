"""The counts [3, 0, 2, 1, 0, 4] scanned across blocks, two ways.

Shown on docs/kernels/attention/prefix-scans-across-blocks.md. A CPU model
of kernels/scan/versions.py's two versions: reduce-then-scan in three passes
(`cumsum_v1`) and one pass with decoupled look-back (`cumsum`, after
Merrill and Garland, 2016). The counts and block split come from the
work-mapping project (snippets/lib/scan_carries.py); the
scheduling model with resident slots is snippets/parallel_prefix_scan/
lookback.py. The model checks the values each block computes and which
schedules can finish in principle; it cannot check a device-wide barrier,
memory ordering or a real scheduler's forward progress.
"""

from __future__ import annotations

import struct
from itertools import accumulate

from evidence.tables import markdown_table
from snippets.lib.lookback import run_lookback
from snippets.lib.scan_carries import COUNTS, block_totals, split_blocks

BLOCK = 2  # three blocks of two counts: enough for a look-back to walk

#: kernels/scan/versions.py's tiles: BLOCK_SIZE (version 1) and SINGLE_PASS_BLOCK
#: (version 2); the test reads them from the kernel's source.
V1_BLOCK, V2_BLOCK = 1024, 4096
WORKED_N = 1 << 28  # the benchmark's quick shape, float32


# --8<-- [start:three-pass]
def three_passes(counts: list[int], block: int) -> dict:
    """cumsum_v1's three passes, as the values each one produces."""
    blocks = split_blocks(counts, block)
    totals = block_totals(blocks)  # pass 1: one total per block
    scanned = list(accumulate(totals))  # pass 2: a shorter inclusive scan
    carries = [0] + scanned[:-1]  # block b adds entry b - 1
    local = [list(accumulate(b)) for b in blocks]  # pass 3: scan each block...
    out = [c + x for c, run in zip(carries, local, strict=True) for x in run]
    return {
        "blocks": blocks,
        "totals": totals,
        "scanned": scanned,
        "carries": carries,
        "local": local,
        "out": out,
    }  # ...and add the carry
    # --8<-- [end:three-pass]


# --8<-- [start:look-back]
NOT_READY, AGGREGATE, PREFIX = 0, 1, 2  # the kernel's flags


def look_back(states: list[tuple[int, int]], block: int):
    """scan_v2_kernel's loop: walk back from block - 1 over the published
    (flag, value) words, adding each value, until one is a PREFIX. Returns
    (exclusive prefix, steps), or (None, steps) if it meets a NOT_READY:
    the kernel would spin there until that block publishes."""
    exclusive, steps, look = 0, [], block - 1
    while look >= 0:
        flag, value = states[look]
        if flag == NOT_READY:
            steps.append(f"block {look}: not ready, wait")
            return None, steps
        exclusive += value
        kind = "prefix" if flag == PREFIX else "aggregate"
        steps.append(f"block {look}: {kind} {value}, sum {exclusive}")
        look = -1 if flag == PREFIX else look - 1
    return exclusive, steps
    # --8<-- [end:look-back]


def worked_look_back(counts: list[int] = COUNTS, block: int = BLOCK) -> dict:
    """The moment the page shows: block 0 has its prefix, block 1 only its
    aggregate (its own look-back is still running), block 2 looks back."""
    totals = block_totals(split_blocks(counts, block))
    states = [(PREFIX, totals[0])] + [(AGGREGATE, t) for t in totals[1:]]
    last = len(totals) - 1
    exclusive, steps = look_back(states, last)
    return {
        "totals": totals,
        "block": last,
        "exclusive": exclusive,
        "prefix": exclusive + totals[last],
        "steps": steps,
    }


# --8<-- [start:schedules]
def schedule(counts: list[int], block: int, slots: int, tickets: bool):
    """Start the blocks last-first with `slots` resident at once: with
    tickets the scan position follows the start order; without, it is the
    launch index and the resident blocks may wait on blocks that cannot
    start."""
    totals = block_totals(split_blocks(counts, block))
    order = list(range(len(totals)))[::-1]
    return run_lookback(totals, slots, order, tickets)
    # --8<-- [end:schedules]


# --8<-- [start:bytes]
def bytes_three_pass(n: int, itemsize: int, block: int) -> int:
    """Read the input twice (passes 1 and 3), write the output once; the
    float32 totals are written, read, written scanned and read again."""
    blocks = -(-n // block)
    return 3 * n * itemsize + 4 * 4 * blocks


def bytes_single_pass(n: int, itemsize: int, block: int) -> int:
    """Read once, write once; one 8-byte state word per block, zeroed,
    published twice and read at least once by the next block's look-back."""
    blocks = -(-n // block)
    return 2 * n * itemsize + 4 * 8 * blocks
    # --8<-- [end:bytes]


def passes_table(counts: list[int] = COUNTS, block: int = BLOCK) -> str:
    """Markdown: each block through the three passes."""
    p = three_passes(counts, block)
    rows = [
        (
            b,
            f"`{blk}`",
            total,
            scanned,
            carry,
            f"`{local}`",
            f"`{[carry + x for x in local]}`",
        )
        for b, (blk, total, scanned, carry, local) in enumerate(
            zip(
                p["blocks"],
                p["totals"],
                p["scanned"],
                p["carries"],
                p["local"],
                strict=True,
            )
        )
    ]
    header = [
        "block",
        "counts",
        "pass 1: total",
        "pass 2: scanned",
        "carry",
        "pass 3: local scan",
        "output",
    ]
    return markdown_table(header, rows, "rlrrrll", escape=False)


# --8<-- [start:carry-orders]
def f32(x: float) -> float:
    """Round to the nearest float32, as the kernel's adder does."""
    return struct.unpack("f", struct.pack("f", x))[0]


def carry_two_ways(totals: list[float]) -> tuple[float, float]:
    """Block 3's exclusive carry over blocks 0-2 in float32, as two runs of
    the single pass can compute it. Early: only block 0 has its prefix, so
    the look-back adds A2, then A1, then P0. Late: block 2 has already
    published P2 = (P0 + A1) + A2, and the look-back stops there."""
    p0, a1, a2 = totals
    early = f32(f32(a2 + a1) + p0)
    late = f32(f32(p0 + a1) + a2)
    return early, late
    # --8<-- [end:carry-orders]


#: Three block totals: one large, two just under half a float32 unit of it.
CARRY_TOTALS = [1.0, 3e-8, 3e-8]


def facts() -> dict[str, str]:
    """Every value the page states by name, formatted for prose; a page
    reads one as ``<!-- fact: <this file>:bytes.ratio -->``."""
    p = three_passes(COUNTS, BLOCK)
    three = bytes_three_pass(WORKED_N, 4, V1_BLOCK)
    one = bytes_single_pass(WORKED_N, 4, V2_BLOCK)
    early, late = carry_two_ways([f32(t) for t in CARRY_TOTALS])
    return {
        "counts": f"`{COUNTS}`",
        "block": str(BLOCK),
        "out": f"`{p['out']}`",
        "totals": f"`{p['totals']}`",
        "carries": f"`{p['carries']}`",
        "exclusive": f"`{[o - c for o, c in zip(p['out'], COUNTS, strict=True)]}`",
        "bytes.n": f"{WORKED_N:,} float32 values",
        "bytes.three": f"{three / 2**30:.3f} GiB",
        "bytes.one": f"{one / 2**30:.3f} GiB",
        "bytes.ratio": f"{three / one:.3f}",
        "carry.totals": ", ".join(f"`{f32(t):.9g}`" for t in CARRY_TOTALS),
        "carry.early": f"`{early:.9g}`",
        "carry.late": f"`{late:.9g}`",
        **look_back_facts(),
        **protocol_facts(),
    }


def carries_figure(counts: list[int] = COUNTS, block: int = BLOCK):
    """Each block's counts, its local inclusive scan, and the same plus the
    carry from the blocks before it."""
    from matplotlib.patches import Rectangle

    from snippets.lib.diagrams import ACCENT, INK, MUTED, figure

    p = three_passes(counts, block)
    fig = figure(6.5, 2.8)
    ax = fig.add_axes((0.2, 0.02, 0.78, 0.96))
    ax.set_axis_off()
    ax.set_xlim(0, len(counts))
    ax.set_ylim(0, 4)
    rows = [
        ("counts", counts, MUTED),
        ("local scan", [x for run in p["local"] for x in run], MUTED),
        ("+ carry", p["out"], ACCENT),
    ]
    for r, (label, values, colour) in enumerate(rows):
        y = 3 - 1.2 * r
        ax.text(-0.2, y + 0.4, label, ha="right", va="center", color=INK)
        for i, v in enumerate(values):
            ax.add_patch(
                Rectangle(
                    (i + 0.05, y), 0.9, 0.8, facecolor=colour, alpha=0.5, edgecolor=INK
                )
            )
            ax.text(i + 0.5, y + 0.4, str(v), ha="center", va="center", color=INK)
    for b, carry in enumerate(p["carries"]):
        ax.text(
            b * block + block / 2,
            3.85,
            f"block {b}, carry {carry}",
            ha="center",
            va="center",
            color=INK,
        )
    return fig


# --8<-- [start:exercise]
def exercise(counts: list[int], block: int) -> dict:
    """Totals, carries and output of the three passes for any block size."""
    p = three_passes(counts, block)
    return {"totals": p["totals"], "carries": p["carries"], "out": p["out"]}
    # --8<-- [end:exercise]


EXERCISE_BLOCK = 4


def exercise_states(counts: list[int] = COUNTS) -> list[tuple[int, int]]:
    """Exercise 2: blocks of one count; the first three have published
    prefixes, the next two only aggregates."""
    prefixes = list(accumulate(counts))
    states = [(PREFIX, prefixes[b]) for b in range(3)]
    return states + [(AGGREGATE, counts[b]) for b in (3, 4)]


def look_back_facts() -> dict[str, str]:
    """The worked look-back, both schedules and both exercises' answers."""
    w = worked_look_back()
    out = {
        "lookback.block": f"{w['block']}",
        "lookback.steps": "; then ".join(w["steps"]),
        "lookback.exclusive": f"{w['exclusive']}",
        "lookback.prefix": f"{w['prefix']}",
    }
    for name, tickets in (("launch", False), ("ticket", True)):
        run = schedule(COUNTS, BLOCK, 2, tickets)
        out[f"schedule.{name}.rounds"] = ", ".join(f"`{r}`" for r in run.rounds)
        out[f"schedule.{name}.prefixes"] = f"`{run.prefixes}`"
    a = exercise(COUNTS, EXERCISE_BLOCK)
    out["exercise.block"] = f"{EXERCISE_BLOCK}"
    out["exercise.totals"] = f"`{a['totals']}`"
    out["exercise.carries"] = f"`{a['carries']}`"
    out["exercise.out"] = f"`{a['out']}`"
    states = exercise_states()
    me = len(states)
    exclusive, steps = look_back(states, me)
    out["exercise2.block"] = f"{me}"
    out["exercise2.steps"] = "; then ".join(steps)
    out["exercise2.exclusive"] = f"{exclusive}"
    out["exercise2.prefix"] = f"{exclusive + COUNTS[me]}"
    out["exercise2.scan"] = f"`{list(accumulate(COUNTS))}`"
    published = [b for b, (flag, _) in enumerate(states) if flag == PREFIX]
    aggregates = [b for b, (flag, _) in enumerate(states) if flag == AGGREGATE]
    read = {int(step.split()[1].rstrip(":")) for step in steps}
    unread = [b for b in range(me) if b not in read]
    out["exercise2.published"] = f"{published[0]} to {published[-1]}"
    out["exercise2.aggregates"] = " and ".join(map(str, aggregates))
    out["exercise2.unread"] = " and ".join(map(str, unread))
    return out


def protocol_facts() -> dict[str, str]:
    """The single-pass build's protocol instructions, from the artifact."""
    from snippets.lib.hopper_artifacts import fact

    main, tail = "single-pass-fp32", "single-pass-tail-fp32"
    narrow = int(fact("scan", tail, "LDG.E")) - int(fact("scan", tail, "LDG.E.64"))
    return {
        "protocol.ticket": fact("scan", main, "ATOMG.E.ADD"),
        "protocol.publish": fact("scan", main, "ATOMG.E.EXCH.64"),
        "protocol.spin": fact("scan", main, "LDG.E.64.STRONG"),
        "protocol.wide": fact("scan", main, "LDG.E.128"),
        "protocol.wide-bits": f"{int('LDG.E.128'.rsplit('.', 1)[-1])}-bit",
        "protocol.narrow": f"{narrow}",
    }


if __name__ == "__main__":
    p = three_passes(COUNTS, BLOCK)
    print(f"counts {COUNTS}, blocks of {BLOCK}: {p['blocks']}")
    print(f"pass 1 totals {p['totals']}; pass 2 scanned {p['scanned']}")
    print(f"pass 3 carries {p['carries']}; output {p['out']}")
    facts = facts()
    print(
        f"Block {facts['lookback.block']} reads {facts['lookback.steps']}. Its "
        f"exclusive prefix is {facts['lookback.exclusive']}, so it publishes the "
        f"prefix {facts['lookback.prefix']} and adds {facts['lookback.exclusive']} "
        "to its own scan."
    )
    print(
        "launch index, reversed start:",
        f"rounds {facts['schedule.launch.rounds']}: no resident block can "
        "progress, a deadlock",
    )
    print(
        "tickets, reversed start:",
        f"rounds {facts['schedule.ticket.rounds']}: finished, prefixes "
        f"{facts['schedule.ticket.prefixes']}",
    )
    print(
        f"bytes for {facts['bytes.n']}: three passes {facts['bytes.three']}, "
        f"one pass {facts['bytes.one']} ({facts['bytes.ratio']}x)"
    )
    print(
        f"block 3's carry, early and late look-back: {facts['carry.early']} "
        f"against {facts['carry.late']}"
    )
