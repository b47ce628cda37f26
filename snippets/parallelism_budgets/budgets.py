"""Communication budgets of the parallel layouts (lesson: Parallelism budgets,
docs/foundations/beyond-one-gpu/parallelism-budgets.md).

Standard library only (plus the training-memory model and the link and
device figures), so the page's calculators run this same code. Bytes per
step are what one GPU sends over its busiest link in one optimizer step;
times are those bytes at the link's published per-direction rate, so they
are floors: a real collective reaches a fraction of the line rate, which
only a measurement gives.
"""

from __future__ import annotations

from kernels.interconnects import (
    GPUS_PER_NODE,
    INFINIBAND_NDR,
    NICS_PER_NODE,
    NVLINK4_H200,
    Link,
)
from snippets.lib.collectives import bus_factor, group_wire
from snippets.lib.parallel_step import (
    ASSUMED_MFU,
    BF16,
    MICRO_BATCH,
    SEQ_LEN,
    compute_seconds,
)
from snippets.lib.training_memory.budget import MODELS, ModelConfig, parameter_count

#: NVLink and one NIC, bytes/s per direction.
LINE_RATES = (
    NVLINK4_H200.per_direction_bytes_per_s,
    INFINIBAND_NDR.per_direction_bytes_per_s,
)


def model(key: str) -> ModelConfig:
    if key not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {key!r}")
    return MODELS[key]


def params(key: str) -> int:
    return parameter_count(model(key))["total"]


def check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")


def wire_seconds(n_bytes: float, link: Link) -> float:
    return n_bytes / link.per_direction_bytes_per_s


# --8<-- [start:data-parallel]
def data_parallel_bytes(n_params: int, dp: int) -> float:
    """Plain data parallelism: one all-reduce of every bf16 gradient per
    step. A ring moves 2(n-1)/n of the buffer through each GPU's link."""
    return bus_factor("all_reduce", dp) * n_params * BF16


def zero_bytes(n_params: int, dp: int, stage: int) -> dict[str, float]:
    """ZeRO's traffic per GPU per step (Rajbhandari et al.):
    stages 1-2 reduce-scatter the gradients and all-gather the updated
    weights, the all-reduce's volume in two halves; stage 3 (FSDP) gathers
    the weights twice, once for forward and once for backward, so it sends
    one and a half times as much."""
    if stage not in (1, 2, 3):
        raise ValueError(f"stage must be 1, 2 or 3, got {stage!r}")
    share = bus_factor("all_gather", dp) * n_params * BF16  # (n-1)/n of it
    gathers = 2 if stage == 3 else 1
    return {"reduce_scatter": share, "all_gather": gathers * share}


# --8<-- [end:data-parallel]


# --8<-- [start:tensor-parallel]
def tensor_parallel_bytes(
    cfg: ModelConfig, tp: int, tokens: int, layers: int, nvls: bool = True
) -> float:
    """Megatron tensor parallelism: two all-reduces of the layer's output
    activations (tokens x hidden, bf16) in forward, after attention and
    after the MLP, and two in backward, per layer. Inside an NVSwitch node
    NCCL runs them as NVLS: the switch adds, so each GPU sends its buffer
    once (a ring would send 2(n-1)/n of it)."""
    if tp < 2:
        return 0.0
    activation = tokens * cfg.hidden * BF16
    per_call = 1.0 if nvls else bus_factor("all_reduce", tp)
    return 4 * layers * per_call * activation


# --8<-- [end:tensor-parallel]


# --8<-- [start:pipeline]
def pipeline_bubble(pp: int, micro_batches: int) -> float:
    """The idle share of a GPipe or 1F1B schedule: (p-1)/(m+p-1)."""
    check_count("pp", pp)
    check_count("micro_batches", micro_batches)
    return (pp - 1) / (micro_batches + pp - 1)


def pipeline_bytes(cfg: ModelConfig, tp: int, tokens_per_micro: int, m: int) -> float:
    """A stage sends its output activations forward and receives their
    gradient back, per micro-batch; split over the stage's tp GPUs
    (Megatron's scatter/gather), one GPU sends 1/tp of it."""
    return 2 * m * tokens_per_micro * cfg.hidden * BF16 / tp


# --8<-- [end:pipeline]


# --8<-- [start:expert-parallel]
def expert_all_to_all_bytes(
    tokens: int, hidden: int, top_k: int, ep: int, layers: int
) -> float:
    """Expert parallelism: each MoE layer sends every token's activation to
    its top_k experts and back (dispatch and combine), in forward and in
    backward; (ep-1)/ep of it leaves the GPU."""
    check_count("top_k", top_k)
    check_count("ep", ep)
    return 4 * layers * bus_factor("all_to_all", ep) * tokens * top_k * hidden * BF16


# --8<-- [end:expert-parallel]


def _calls(calls: list, world: int, size: float, per_node: int) -> dict:
    """The wire of several collectives (name, times) on one group, added."""
    links = (LINE_RATES[0], LINE_RATES[1], NICS_PER_NODE)
    wires = [
        group_wire(name, world, size, per_node, links)
        for name, times in calls
        for _ in range(times)
    ]
    return {
        "bytes": sum(w["bytes"] for w in wires),
        "link": wires[0]["link"],
        "seconds": sum(w["seconds"] for w in wires),
        "one_nic_seconds": sum(w.get("one_nic_seconds", w["seconds"]) for w in wires),
    }


# --8<-- [start:layout]
def layout_budget(
    key: str,
    tp: int = 1,
    pp: int = 1,
    dp: int = 8,
    micro_batches: int = 1,
    zero_stage: int = 0,
    mfu: float = ASSUMED_MFU,
) -> dict:
    """Per GPU per step: compute time, and each kind of traffic's bytes on
    its busiest link, that link and the wire time. Ranks are placed
    tensor-parallel innermost, then data parallel, then pipeline
    (Megatron's order), 8 GPUs and 8 NICs per NVSwitch node: a group that
    spans nodes crosses InfiniBand on one NIC per GPU it has in a node."""
    for name, value in (
        ("tp", tp),
        ("pp", pp),
        ("dp", dp),
        ("micro_batches", micro_batches),
    ):
        check_count(name, value)
    if tp > GPUS_PER_NODE:
        raise ValueError(f"tp {tp} must stay inside one {GPUS_PER_NODE}-GPU node")
    cfg, n = model(key), params(key)
    if cfg.layers % pp:
        raise ValueError(f"pp {pp} must divide the {cfg.layers} layers")
    gpus = tp * pp * dp
    tokens_per_micro = MICRO_BATCH * SEQ_LEN
    tokens = dp * micro_batches * tokens_per_micro  # the whole step's batch
    bubble = pipeline_bubble(pp, micro_batches)
    compute = compute_seconds(n, tokens, gpus, mfu) / (1 - bubble)
    shard = n // (tp * pp)  # the weights one GPU holds before ZeRO
    dp_per_node = min(dp, GPUS_PER_NODE // tp)  # one rail per GPU of the group
    pp_link = NVLINK4_H200 if tp * dp * pp <= GPUS_PER_NODE else INFINIBAND_NDR
    traffic = {}
    if dp > 1:
        gathers = 2 if zero_stage == 3 else 1  # ZeRO-3 gathers for both passes
        calls = [("all_reduce", 1)]
        if zero_stage:
            calls = [("reduce_scatter", 1), ("all_gather", gathers)]
        # gradients overlap the backward pass (about 2/3 of the compute);
        # ZeRO-3's weight gathers can run ahead of the forward pass too
        window = compute if zero_stage == 3 else compute * 2 / 3
        traffic["data parallel"] = (
            _calls(calls, dp, shard * BF16, dp_per_node),
            window,
        )
    if tp > 1:
        tp_bytes = tensor_parallel_bytes(
            cfg, tp, micro_batches * tokens_per_micro, cfg.layers // pp
        )
        seconds = wire_seconds(tp_bytes, NVLINK4_H200)
        row = {"bytes": tp_bytes, "link": "NVLink (NVLS)", "seconds": seconds}
        traffic["tensor parallel"] = (row, 0.0)  # on the critical path
    if pp > 1:
        pp_bytes = pipeline_bytes(cfg, tp, tokens_per_micro, micro_batches)
        seconds = wire_seconds(pp_bytes, pp_link)
        row = {"bytes": pp_bytes, "link": pp_link.short, "seconds": seconds}
        # sends overlap other micro-batches
        traffic["pipeline"] = (row, compute)
    rows = {
        kind: {**row, "hides": row["seconds"] <= window}
        for kind, (row, window) in traffic.items()
    }
    return {"gpus": gpus, "compute_seconds": compute, "bubble": bubble, "traffic": rows}


# --8<-- [end:layout]


def fmt_gb(n_bytes: float) -> str:
    return f"{n_bytes / 1e9:.3g} GB"


def fmt_s(t: float) -> str:
    return f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s"


# --8<-- [start:calculator]
def parallelism_budget(
    model_key: str = "llama3-8b",
    tp: int = 1,
    pp: int = 1,
    dp: int = 8,
    micro_batches: int = 1,
    zero_stage: int = 0,
    mfu: float = 0.4,
) -> str:
    """Bytes per GPU per step, wire time at the link's rate, and whether it
    hides under compute, for Llama-3 (llama3-8b or llama3-70b) on H200
    nodes of 8 GPUs (NVSwitch inside, InfiniBand NDR between)."""
    b = layout_budget(model_key, tp, pp, dp, micro_batches, zero_stage, mfu)
    parts = [f"{b['gpus']} GPUs, compute {fmt_s(b['compute_seconds'])} per step"]
    if pp > 1:
        parts.append(f"bubble {b['bubble']:.0%}")
    for kind, row in b["traffic"].items():
        verdict = "hides" if row["hides"] else "exposed"
        parts.append(
            f"{kind}: {fmt_gb(row['bytes'])} over {row['link']}, "
            f"{fmt_s(row['seconds'])} ({verdict})"
        )
    return "; ".join(parts)


def expert_parallel_budget(
    tokens: int = 8192,
    hidden: int = 4096,
    top_k: int = 2,
    ep: int = 8,
    moe_layers: int = 32,
    across_nodes: bool = False,
) -> str:
    """All-to-all bytes per GPU per step for an MoE model, and their time
    over NVLink (inside a node) or InfiniBand (across nodes, one expert GPU
    in each node, so each sends over its own NIC)."""
    n_bytes = expert_all_to_all_bytes(tokens, hidden, top_k, ep, moe_layers)
    link = INFINIBAND_NDR if across_nodes else NVLINK4_H200
    return (
        f"{fmt_gb(n_bytes)} of all-to-all per GPU per step, "
        f"{fmt_s(wire_seconds(n_bytes, link))} over {link.short}"
    )


# --8<-- [end:calculator]
