"""Overlapping the gradient all-reduce with the backward pass, as a timeline
(lesson: docs/foundations/beyond-one-gpu/overlapping-communication.md).

Standard library only, so the page's calculator runs this same code. The
backward pass visits layers from last to first; each layer's gradients join
the open bucket, and a full bucket is queued for all-reduce on its own
stream while the next layers compute. Three things the model lets go wrong:

- small buckets: every all-reduce pays the per-call cost alpha;
- SM contention: while an all-reduce runs, its kernels hold SMs and memory
  bandwidth, so the backward kernels beside it run `contention` slower;
- stream priorities: an all-reduce queued behind compute kernels already
  launched on a busy GPU starts `launch_delay_s` late.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernels.interconnects import (
    GPUS_PER_NODE,
    INFINIBAND_NDR,
    NICS_PER_NODE,
    NVLINK4_H200,
)
from snippets.lib.collectives import group_wire
from snippets.lib.parallel_step import BF16, SEQ_LEN, compute_seconds
from snippets.lib.training_memory.budget import LLAMA3_8B, parameter_count

#: An assumed fixed cost per all-reduce call across nodes (latency, launch,
#: synchronisation). Not a measurement: the project page measures yours.
ASSUMED_ALPHA_S = 50e-6
#: PyTorch DistributedDataParallel's default bucket_cap_mb.
DDP_BUCKET_BYTES = 25 * 2**20


@dataclass(frozen=True)
class Span:
    what: str  # "layer 31" or "bucket 2"
    start: float
    end: float


# --8<-- [start:timeline]
def backward_timeline(
    layer_seconds: list[float],
    layer_bytes: list[float],
    bucket_bytes: float,
    comm_seconds,
    contention: float = 0.0,
    launch_delay_s: float = 0.0,
) -> dict:
    """Simulate one backward pass. Layers are given in backward order;
    comm_seconds(bytes) is one all-reduce's time. Returns the compute and
    communication spans and the exposed time: how much later the step's
    backward (and its last all-reduce) ends than the compute alone would."""
    if bucket_bytes <= 0:
        raise ValueError(f"bucket_bytes must be positive, got {bucket_bytes!r}")
    if contention < 0 or launch_delay_s < 0:
        raise ValueError("contention and launch_delay_s must not be negative")
    buckets, open_bytes = [], 0.0  # (index of the layer that closes it, bytes)
    for i, b in enumerate(layer_bytes):
        open_bytes += b
        if open_bytes >= bucket_bytes or i == len(layer_bytes) - 1:
            buckets.append((i, open_bytes))
            open_bytes = 0.0

    t, comm_free = 0.0, 0.0
    layers, comms, active = [], [], []  # active: (start, end) of comm spans
    queued = list(buckets)
    for i, work in enumerate(layer_seconds):
        start, left = t, work
        while left > 1e-15:  # a layer slows while an all-reduce overlaps it
            running = [(s, e) for s, e in active if s <= t < e]
            rate = 1 / (1 + contention) if running else 1.0
            next_change = min(
                [e for s, e in active if s <= t < e] + [s for s, e in active if s > t],
                default=float("inf"),
            )
            finish = t + left / rate
            if finish <= next_change:
                t, left = finish, 0.0
            else:
                left -= (next_change - t) * rate
                t = next_change
        layers.append(Span(f"layer {i}", start, t))
        while queued and queued[0][0] == i:
            _, n_bytes = queued.pop(0)
            begin = max(t + launch_delay_s, comm_free)
            comm_free = begin + comm_seconds(n_bytes)
            active.append((begin, comm_free))
            comms.append(Span(f"bucket {len(comms)}", begin, comm_free))
    return {
        "layers": layers,
        "buckets": comms,
        "backward_end": t,
        # what communication costs the step: its end against compute alone
        "exposed": max(comm_free, t) - sum(layer_seconds),
    }


# --8<-- [end:timeline]


def llama_8b_tensors(
    dp: int = 32, tokens: int = SEQ_LEN, alpha_s: float = ASSUMED_ALPHA_S
):
    """Llama-3 8B's gradients in the order backward produces them (head
    first, then each layer's down, up, gate, norm, o, v, k, q, norm, the
    embedding last): bf16 bytes per tensor, compute time per tensor in
    proportion to its matmul's parameters (4 of the 6 FLOPs per parameter
    per token), and the all-reduce at line rate: across nodes, NCCL's rings
    over all eight NICs of each node (snippets/lib/collectives.py)."""
    cfg = LLAMA3_8B
    h, kv = cfg.hidden, cfg.kv_heads * cfg.head_dim
    layer = [
        h * cfg.intermediate,  # down
        h * cfg.intermediate,  # up
        h * cfg.intermediate,  # gate
        h,  # post-attention norm
        h * h,  # o
        h * kv,  # v
        h * kv,  # k
        h * h,  # q
        h,  # input norm
    ]
    sizes = [cfg.vocab * h] + layer * cfg.layers + [h, cfg.vocab * h]  # + final norm
    # Norms and the embedding (a scatter-add) cost no matmul FLOPs.
    matmul = [s if s > h else 0 for s in sizes[:-1]] + [0]
    backward = compute_seconds(parameter_count(cfg)["total"], tokens, 1) * 2 / 3
    tensor_seconds = [backward * m / sum(matmul) for m in matmul]
    tensor_bytes = [BF16 * s for s in sizes]

    per_node = min(dp, GPUS_PER_NODE)
    links = (
        NVLINK4_H200.per_direction_bytes_per_s,
        INFINIBAND_NDR.per_direction_bytes_per_s,
        NICS_PER_NODE,
    )

    def comm(n_bytes: float) -> float:
        wire = group_wire("all_reduce", dp, n_bytes, per_node, links)
        return alpha_s + wire["seconds"]

    return tensor_seconds, tensor_bytes, comm


def scenario(
    bucket_mib=25.0, contention=0.0, launch_delay_us=0.0, dp=32, alpha_s=ASSUMED_ALPHA_S
) -> dict:
    seconds, n_bytes, comm = llama_8b_tensors(dp, alpha_s=alpha_s)
    tl = backward_timeline(
        seconds, n_bytes, bucket_mib * 2**20, comm, contention, launch_delay_us * 1e-6
    )
    tl["compute_alone"] = sum(seconds)
    tl["communication"] = sum(b.end - b.start for b in tl["buckets"])
    return tl


# --8<-- [start:calculator]
def overlap(
    bucket_mib: float = 25.0,
    contention: float = 0.0,
    launch_delay_us: float = 0.0,
    data_parallel: int = 32,
) -> str:
    """Llama-3 8B, one 8,192-token sequence per GPU, gradients all-reduced
    over InfiniBand NDR across `data_parallel` GPUs: the backward pass, the
    communication, and what is left exposed after the last layer."""
    total_mib = sum(llama_8b_tensors(data_parallel)[1]) / 2**20
    if not 0 < bucket_mib <= total_mib:
        raise ValueError(
            f"bucket_mib must be positive and at most the gradients' "
            f"{total_mib:,.0f} MiB, got {bucket_mib!r}"
        )
    tl = scenario(bucket_mib, contention, launch_delay_us, data_parallel)
    count = len(tl["buckets"])
    return (
        f"{count} bucket{'s' if count != 1 else ''}; backward alone "
        f"{tl['compute_alone'] * 1e3:.0f} ms, communication "
        f"{tl['communication'] * 1e3:.0f} ms; the step's backward ends "
        f"{tl['exposed'] * 1e3:.0f} ms later than compute alone would"
    )


# --8<-- [end:calculator]
