"""The parallelism-budget lesson's worked layouts and exercises: every
number the page states comes from ``facts()`` or a table here."""

from __future__ import annotations

import math

from evidence.tables import markdown_table
from kernels.interconnects import (
    GPUS_PER_NODE,
    INFINIBAND_NDR,
    NICS_PER_NODE,
    NVLINK4_H200,
)
from snippets.lib.parallel_step import (
    ASSUMED_MFU,
    MICRO_BATCH,
    SEQ_LEN,
    compute_seconds,
)
from snippets.parallelism_budgets.budgets import (
    data_parallel_bytes,
    expert_all_to_all_bytes,
    fmt_gb,
    fmt_s,
    layout_budget,
    model,
    params,
    pipeline_bubble,
    wire_seconds,
)

#: The layouts the page works through: (label, model, tp, pp, dp, m, zero).
LAYOUTS = {
    "8b-node": ("Llama-3 8B, data parallel in one node", "llama3-8b", 1, 1, 8, 1, 0),
    "8b-4nodes": (
        "Llama-3 8B, data parallel over 4 nodes",
        "llama3-8b",
        1,
        1,
        32,
        1,
        0,
    ),
    "70b-tp-dp": (
        "Llama-3 70B, TP 8 in a node, DP 4 across",
        "llama3-70b",
        8,
        1,
        4,
        1,
        1,
    ),
    "70b-tp-pp": (
        "Llama-3 70B, TP 8 in a node, PP 4 across",
        "llama3-70b",
        8,
        4,
        1,
        16,
        0,
    ),
}


def budget(name: str) -> dict:
    _, key, tp, pp, dp, m, zero = LAYOUTS[name]
    return layout_budget(key, tp, pp, dp, m, zero)


def layout_table() -> str:
    """One row per layout and kind of traffic."""
    rows = []
    for name, (label, *_rest) in LAYOUTS.items():
        b = budget(name)
        for kind, row in b["traffic"].items():
            rows.append(
                [
                    label,
                    kind,
                    fmt_gb(row["bytes"]),
                    row["link"],
                    fmt_s(row["seconds"]),
                    fmt_s(b["compute_seconds"]),
                    "yes" if row["hides"] else "no",
                ]
            )
    header = [
        "layout",
        "traffic",
        "per GPU per step, busiest link",
        "link",
        "wire time",
        "compute",
        "hides?",
    ]
    return markdown_table(header, rows, "llrlrrl")


# Exercise 1: how many accumulation micro-batches hide 70B's gradient traffic
# (one NIC per data-parallel group in a node) inside half of the backward?
def accumulation_needed(name: str = "70b-tp-dp", share_of_backward: float = 0.5) -> int:
    _, key, tp, pp, dp, _m, zero = LAYOUTS[name]
    for m in range(1, 1025):
        b = layout_budget(key, tp, pp, dp, m, zero)
        if (
            b["traffic"]["data parallel"]["seconds"]
            <= share_of_backward * b["compute_seconds"] * 2 / 3
        ):
            return m
    raise ValueError("no accumulation count up to 1024 hides it")


# Exercise 3: the fewest micro-batches that keep a 4-stage bubble under 10%.
def micro_batches_for_bubble(pp: int = 4, target: float = 0.1) -> int:
    return math.ceil((pp - 1) * (1 - target) / target - 1e-12)


# Exercise 4: a hypothetical MoE with Llama-3 8B's shape, every MLP made of
# 8 experts with top-2 routing, experts spread over 8 GPUs.
MOE = {"top_k": 2, "ep": 8}


def moe_bytes() -> float:
    cfg = model("llama3-8b")
    return expert_all_to_all_bytes(
        SEQ_LEN, cfg.hidden, MOE["top_k"], MOE["ep"], cfg.layers
    )


IB = INFINIBAND_NDR.per_direction_bytes_per_s


# Exercise 5: the one-NIC mistake, charging the 4-node ring's bytes to one
# GPU's NIC as if the node had no other.
def one_nic_facts(name: str = "8b-4nodes") -> dict[str, str]:
    b = budget(name)
    row = b["traffic"]["data parallel"]
    wrong, right = row["one_nic_seconds"], row["seconds"]
    return {
        "ex5.bus": fmt_gb(data_parallel_bytes(params("llama3-8b"), 32)),
        "ex5.wrong": fmt_s(wrong),
        "ex5.wrong_share": f"{wrong / b['compute_seconds']:.0%}",
        "ex5.right": fmt_s(right),
        "ex5.right_share": f"{right / b['compute_seconds']:.0%}",
        "ex5.factor": f"{wrong / right:.1f}",
        "ex5.nics": f"{NICS_PER_NODE}",
    }


def facts() -> dict[str, str]:
    out = {
        "seq_len": f"{SEQ_LEN:,}",
        "micro_batch": f"{MICRO_BATCH}",
        "mfu": f"{ASSUMED_MFU:.0%}",
        "gpus_per_node": f"{GPUS_PER_NODE}",
        "nvlink": f"{NVLINK4_H200.per_direction_bytes_per_s / 1e9:.0f} GB/s",
        "nvlink_bidir": f"{NVLINK4_H200.bidirectional_bytes_per_s / 1e9:.0f} GB/s",
        "ib": f"{INFINIBAND_NDR.per_direction_bytes_per_s / 1e9:.0f} GB/s",
        "nvlink_over_ib": f"{NVLINK4_H200.per_direction_bytes_per_s / IB:.0f}",
        "params_8b": f"{params('llama3-8b') / 1e9:.2f} billion",
        "params_70b": f"{params('llama3-70b') / 1e9:.2f} billion",
        "grad_8b": fmt_gb(2 * params("llama3-8b")),
    }
    for name in LAYOUTS:
        b = budget(name)
        out[f"{name}.compute"] = fmt_s(b["compute_seconds"])
        out[f"{name}.gpus"] = f"{b['gpus']}"
        out[f"{name}.bubble"] = f"{b['bubble']:.0%}"
        for kind, row in b["traffic"].items():
            k = kind.split()[0]
            out[f"{name}.{k}.bytes"] = fmt_gb(row["bytes"])
            out[f"{name}.{k}.seconds"] = fmt_s(row["seconds"])
            out[f"{name}.{k}.share"] = f"{row['seconds'] / b['compute_seconds']:.0%}"
    m = accumulation_needed()
    _, key, tp, pp, dp, _m, zero = LAYOUTS["70b-tp-dp"]
    b = layout_budget(key, tp, pp, dp, m, zero)
    out["ex1.m"] = f"{m}"
    out["ex1.compute"] = fmt_s(b["compute_seconds"])
    out["ex1.wire"] = fmt_s(b["traffic"]["data parallel"]["seconds"])
    out |= one_nic_facts()
    z3 = layout_budget("llama3-8b", 1, 1, 32, 1, 3)
    out["ex2.bytes"] = fmt_gb(z3["traffic"]["data parallel"]["bytes"])
    out["ex2.seconds"] = fmt_s(z3["traffic"]["data parallel"]["seconds"])
    out["ex2.hides"] = (
        "hides" if z3["traffic"]["data parallel"]["hides"] else "does not hide"
    )
    out["ex2.compute"] = fmt_s(z3["compute_seconds"])
    mb = micro_batches_for_bubble()
    out["ex3.m"] = f"{mb}"
    out["ex3.bubble"] = f"{pipeline_bubble(4, mb):.1%}"
    out["ex3.before"] = f"{pipeline_bubble(4, mb - 1):.1%}"
    moe = moe_bytes()
    out["ex4.top_k"] = f"{MOE['top_k']}"
    out["ex4.ep"] = f"{MOE['ep']}"
    out["ex4.bytes"] = fmt_gb(moe)
    out["ex4.nvlink"] = fmt_s(wire_seconds(moe, NVLINK4_H200))
    out["ex4.ib"] = fmt_s(wire_seconds(moe, INFINIBAND_NDR))
    out["ex4.compute"] = fmt_s(compute_seconds(params("llama3-8b"), SEQ_LEN, 1))
    return out


if __name__ == "__main__":
    for name, (label, *_r) in LAYOUTS.items():
        b = budget(name)
        print(f"{label}: compute {fmt_s(b['compute_seconds'])}")
        for kind, row in b["traffic"].items():
            print(f"  {kind}: {fmt_gb(row['bytes'])}, {fmt_s(row['seconds'])}")
