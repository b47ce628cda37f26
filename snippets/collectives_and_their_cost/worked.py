"""The collectives lesson's worked numbers and exercises (every value the
page states comes from ``facts()`` here)."""

from __future__ import annotations

from evidence.tables import markdown_table
from kernels.interconnects import INFINIBAND_NDR, LINKS, NVLINK4_H200
from snippets.lib.collectives import (
    COLLECTIVES,
    bandwidths,
    bus_factor,
    fmt_bytes,
    fmt_rate,
    fmt_seconds,
    ring_seconds,
    tree_all_reduce_seconds,
)

#: The exercises' premise: a per-hop cost the reader is told to assume
#: (NVLink-class hops are microseconds; only a measurement says how many).
PREMISE_HOP_S = 5e-6
EXAMPLE_SIZE = 2**30  # a 1 GiB gradient buffer
LARGE_WORLD = 1024
SMALL_MESSAGE = 64 * 2**10


def factor_table(worlds=(2, 8, 64)) -> str:
    header = ["collective", *(f"busbw / algbw at n = {n}" for n in worlds)]
    rows = [
        [name, *(f"{bus_factor(name, n):.3g}" for n in worlds)] for name in COLLECTIVES
    ]
    return markdown_table(header, rows, "l" + "r" * len(worlds))


def link_table() -> str:
    rows = [
        [
            link.short,
            fmt_rate(link.per_direction_bytes_per_s),
            fmt_rate(link.bidirectional_bytes_per_s),
            link.scope,
            link.source,
        ]
        for link in LINKS.values()
    ]
    header = ["link", "per direction", "both directions", "between", "source"]
    return markdown_table(header, rows, "lrrll")


def contributed_table(folder=None) -> str:
    """Readers' nccl-tests runs beside the link rate and this lesson's ring
    model at the same size, with the exercises' hop latency."""
    from snippets.lib.contributed import collectives_table

    return collectives_table(PREMISE_HOP_S, folder)


def half_bandwidth_size(world: int, hop_s: float, link_bytes_per_s: float) -> float:
    """The all-reduce size at which a ring's bus bandwidth is half the
    link's: where the latency term equals the wire term."""
    hops = 2 * (world - 1)
    return hops * hop_s * link_bytes_per_s / bus_factor("all_reduce", world)


def facts() -> dict[str, str]:
    nv, ib = (
        NVLINK4_H200.per_direction_bytes_per_s,
        INFINIBAND_NDR.per_direction_bytes_per_s,
    )
    t8 = ring_seconds("all_reduce", 8, EXAMPLE_SIZE, PREMISE_HOP_S, nv)
    bw8 = bandwidths("all_reduce", 8, EXAMPLE_SIZE, t8)
    ring_big = ring_seconds("all_reduce", LARGE_WORLD, SMALL_MESSAGE, PREMISE_HOP_S, ib)
    tree_big = tree_all_reduce_seconds(LARGE_WORLD, SMALL_MESSAGE, PREMISE_HOP_S, ib)
    ar8, ar64 = bus_factor("all_reduce", 8), bus_factor("all_reduce", 64)
    return {
        "hop": fmt_seconds(PREMISE_HOP_S),
        "example_size": fmt_bytes(EXAMPLE_SIZE),
        "nvlink": fmt_rate(nv),
        "nvlink_bidir": fmt_rate(NVLINK4_H200.bidirectional_bytes_per_s),
        "ib": fmt_rate(ib),
        "ex.t8": fmt_seconds(t8),
        "ex.algbw8": fmt_rate(bw8["algbw"]),
        "ex.busbw8": fmt_rate(bw8["busbw"]),
        "ex1.ratio": f"{ar64 / ar8:.3g}",
        "ex1.f8": f"{bus_factor('all_reduce', 8):.3g}",
        "ex1.f64": f"{bus_factor('all_reduce', 64):.3g}",
        "ex2.size": fmt_bytes(half_bandwidth_size(8, PREMISE_HOP_S, nv)),
        "ex2.hops": f"{2 * (8 - 1)}",
        "ex3.world": f"{LARGE_WORLD:,}",
        "ex3.size": fmt_bytes(SMALL_MESSAGE),
        "ex3.ring": fmt_seconds(ring_big),
        "ex3.tree": fmt_seconds(tree_big),
        "ex3.ratio": f"{ring_big / tree_big:.0f}",
    }


if __name__ == "__main__":
    link = NVLINK4_H200.per_direction_bytes_per_s
    for world in (2, 8, 64):
        t = ring_seconds("all_reduce", world, EXAMPLE_SIZE, PREMISE_HOP_S, link)
        bw = bandwidths("all_reduce", world, EXAMPLE_SIZE, t)
        print(
            f"ring all-reduce of {fmt_bytes(EXAMPLE_SIZE)}, {world:>2} ranks "
            f"at {fmt_rate(link)}: {fmt_seconds(t)}, "
            f"algbw {fmt_rate(bw['algbw'])}, busbw {fmt_rate(bw['busbw'])}"
        )
