"""The cost of a collective: bus bandwidth and the alpha-beta model.

Taught in docs/foundations/beyond-one-gpu/collectives-and-their-cost.md;
the parallelism-budget, overlap and project pages and the measuring tool
(``python -m scripts.collectives``) all use it. Standard library only, so
the pages' calculators run this same code.

Sizes follow nccl-tests' convention (its PERFORMANCE.md): ``size`` is the
bytes of the full buffer one rank sees (the all-reduce buffer; the
all-gather output; the reduce-scatter input; the all-to-all buffer; the
broadcast buffer).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

COLLECTIVES = ("all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast")


def check_world(world: int) -> None:
    if isinstance(world, bool) or not isinstance(world, int) or world < 2:
        raise ValueError(f"world must be an integer of at least 2, got {world!r}")


def check_collective(name: str) -> None:
    if name not in COLLECTIVES:
        raise ValueError(
            f"collective must be one of {', '.join(COLLECTIVES)}, got {name!r}"
        )


# --8<-- [start:bus-factor]
def bus_factor(collective: str, world: int) -> float:
    """busbw / algbw, as nccl-tests defines it: the share of the buffer
    that must cross each rank's link, so that the bus bandwidth of a good
    implementation approaches the link's speed whatever the world size.

    all-reduce 2(n-1)/n: a reduce-scatter then an all-gather, each moving
    (n-1)/n of the buffer through every rank. broadcast 1: the whole buffer
    reaches every rank once."""
    check_collective(collective)
    check_world(world)
    if collective == "all_reduce":
        return 2 * (world - 1) / world
    if collective == "broadcast":
        return 1.0
    return (world - 1) / world  # reduce_scatter, all_gather, all_to_all


def bandwidths(collective: str, world: int, size: int, seconds: float) -> dict:
    """Algorithm bandwidth (size / time) and bus bandwidth, bytes/s."""
    if seconds <= 0:
        raise ValueError(f"seconds must be positive, got {seconds!r}")
    algbw = size / seconds
    return {"algbw": algbw, "busbw": algbw * bus_factor(collective, world)}


# --8<-- [end:bus-factor]


# --8<-- [start:ring-tree]
def ring_seconds(
    collective: str, world: int, size: float, latency_s: float, link_bytes_per_s: float
) -> float:
    """A ring: each of the steps sends one chunk of size/n to a neighbour,
    so the latency term grows with n while the bytes per link do not.
    all-reduce takes 2(n-1) steps; reduce-scatter, all-gather and
    all-to-all (n-1); a pipelined broadcast is charged its bytes once plus
    n-1 hops of latency."""
    steps = {"all_reduce": 2 * (world - 1), "broadcast": world - 1}
    hops = steps.get(collective, world - 1)
    wire = bus_factor(collective, world) * size / link_bytes_per_s
    return hops * latency_s + wire


def tree_all_reduce_seconds(
    world: int, size: float, latency_s: float, link_bytes_per_s: float
) -> float:
    """A double binary tree all-reduce (NCCL's tree): reduce up and
    broadcast down, 2*log2(n) hops of latency, and, pipelined, each rank's
    link carries the buffer about twice (once up, once down) over two trees
    that each carry half of it: bytes per link about 2*size*(n-1)/n, the
    ring's, but latency logarithmic in n instead of linear."""
    check_world(world)
    hops = 2 * math.ceil(math.log2(world))
    return hops * latency_s + 2 * (world - 1) / world * size / link_bytes_per_s


# --8<-- [end:ring-tree]


# --8<-- [start:across-nodes]
def group_wire(
    collective: str,
    world: int,
    size: float,
    per_node: int,
    links: tuple[float, float, int],
    nvls: bool = True,
) -> dict:
    """The bytes on the busiest link and the line-rate time of one
    collective over `world` GPUs placed `per_node` to an NVSwitch node;
    `links` is (NVLink, NIC bytes/s per direction, NICs per node).

    In one node a ring sends bus_factor * size through each GPU's NVLink.
    For an all-reduce NCCL picks NVLink SHARP (NVLS) there by default: the
    switch adds, so each GPU sends its buffer once and receives the sum
    once. Across nodes every ring enters and leaves each node once per
    channel, and the channels are spread over the node's NICs: the node's
    crossings carry the ring's bus bytes once, shared by one NIC per GPU of
    the group; the rest of each GPU's bytes stay on NVLink."""
    check_world(world)
    if isinstance(per_node, bool) or not isinstance(per_node, int):
        raise ValueError(f"per_node must be an integer, got {per_node!r}")
    if not 1 <= per_node <= world:
        raise ValueError(f"per_node must be 1 to {world}, got {per_node!r}")
    nvlink, nic, nics = links
    bus = bus_factor(collective, world) * size
    if per_node == world:
        if nvls and collective == "all_reduce":
            seconds = size / nvlink
            return {"bytes": size, "seconds": seconds, "link": "NVLink (NVLS)"}
        return {"bytes": bus, "seconds": bus / nvlink, "link": "NVLink"}
    rails = min(per_node, nics)
    over_nic = bus / rails
    over_nvlink = bus * (per_node - 1) / per_node
    link = f"InfiniBand, {rails} of {nics} NICs a node"
    return {
        "bytes": over_nic,
        "seconds": max(over_nic / nic, over_nvlink / nvlink),
        "link": link,
        "one_nic_seconds": bus / nic,
    }


# --8<-- [end:across-nodes]


# --8<-- [start:alpha-beta]
@dataclass(frozen=True)
class AlphaBeta:
    """t(size) = alpha + beta * size: a fixed cost per call (latency,
    synchronisation, launch) and a cost per byte (1 / bandwidth)."""

    alpha_s: float
    beta_s_per_byte: float

    def seconds(self, size: float) -> float:
        return self.alpha_s + self.beta_s_per_byte * size

    def bus_bytes_per_s(self, collective: str, world: int) -> float:
        """The bus bandwidth the per-byte term implies for large messages."""
        return bus_factor(collective, world) / self.beta_s_per_byte


def fit_alpha_beta(sizes: list[float], seconds: list[float]) -> AlphaBeta:
    """Least squares on relative error (each point weighted by 1/t^2), so
    the small messages that set alpha count as much as the large ones that
    set beta. Needs at least two distinct sizes."""
    if len(sizes) != len(seconds) or len(set(sizes)) < 2:
        raise ValueError("fit_alpha_beta needs two or more distinct sizes")
    if min(seconds) <= 0:
        raise ValueError("every time must be positive")
    w = [1 / t**2 for t in seconds]
    sw = sum(w)
    sx = sum(wi * x for wi, x in zip(w, sizes, strict=True))
    sy = sum(wi * y for wi, y in zip(w, seconds, strict=True))
    sxx = sum(wi * x * x for wi, x in zip(w, sizes, strict=True))
    sxy = sum(wi * x * y for wi, x, y in zip(w, sizes, seconds, strict=True))
    beta = (sw * sxy - sx * sy) / (sw * sxx - sx * sx)
    alpha = (sy - beta * sx) / sw
    return AlphaBeta(alpha, beta)


def relative_errors(model: AlphaBeta, sizes, seconds) -> list[float]:
    """|predicted - measured| / measured for each point."""
    return [abs(model.seconds(x) - t) / t for x, t in zip(sizes, seconds, strict=True)]


def split_held_back(points: list[tuple[float, float]]) -> tuple[list, list]:
    """Sort by size; fit on every other point (the smallest and largest
    always kept) and hold back the rest to test the fit."""
    ordered = sorted(points)
    held = [p for i, p in enumerate(ordered) if i % 2 == 1 and i != len(ordered) - 1]
    fit = [p for p in ordered if p not in held]
    return fit, held


# --8<-- [end:alpha-beta]


def fmt_bytes(n: float) -> str:
    """Bytes with a binary prefix for message sizes (4 KiB, 16 MiB)."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def fmt_seconds(t: float) -> str:
    if t >= 1:
        return f"{t:.3g} s"
    if t >= 1e-3:
        return f"{t * 1e3:.3g} ms"
    return f"{t * 1e6:.3g} µs"


def fmt_rate(bytes_per_s: float) -> str:
    """Bandwidth in GB/s (10**9 bytes, the unit of link datasheets)."""
    return f"{bytes_per_s / 1e9:.3g} GB/s"


# --8<-- [start:calculator]
def collective_time(
    collective: str = "all_reduce",
    world: int = 8,
    size_mib: float = 256.0,
    latency_us: float = 10.0,
    link_gb_per_s: float = 450.0,
) -> str:
    """Ring time for one collective under the alpha-beta model: latency per
    hop in microseconds, link bandwidth per direction in GB/s (10**9 B/s)."""
    check_collective(collective)
    check_world(world)
    if size_mib <= 0 or latency_us < 0 or link_gb_per_s <= 0:
        raise ValueError("size and bandwidth must be positive, latency not negative")
    size = size_mib * 2**20
    t = ring_seconds(collective, world, size, latency_us * 1e-6, link_gb_per_s * 1e9)
    bw = bandwidths(collective, world, size, t)
    return (
        f"{collective} of {fmt_bytes(size)} over {world} ranks: {fmt_seconds(t)}; "
        f"algbw {fmt_rate(bw['algbw'])}, busbw {fmt_rate(bw['busbw'])}"
    )


# --8<-- [end:calculator]
