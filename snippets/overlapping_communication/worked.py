"""The overlap lesson's worked timelines and exercises: every number the
page states comes from ``facts()`` here."""

from __future__ import annotations

from evidence.tables import markdown_table
from snippets.overlapping_communication.timeline import (
    ASSUMED_ALPHA_S,
    DDP_BUCKET_BYTES,
    llama_8b_tensors,
    scenario,
)

DDP_MIB = DDP_BUCKET_BYTES / 2**20
CONTENTION = 0.2  # kernels beside an all-reduce run this much slower
LATE_US = 2000.0  # each all-reduce starts this late
#: The scenarios the page compares: (label, bucket MiB, contention, delay µs).
SCENARIOS = {
    "one": ("one bucket for all gradients", 1e6, 0.0, 0.0),
    "ddp": (f"{DDP_MIB:g} MiB buckets", DDP_MIB, 0.0, 0.0),
    "tiny": ("one bucket per tensor", 1e-6, 0.0, 0.0),
    "contention": (
        f"{DDP_MIB:g} MiB buckets, kernels {CONTENTION:.0%} slower beside NCCL",
        DDP_MIB,
        CONTENTION,
        0.0,
    ),
    "late": (
        f"{DDP_MIB:g} MiB buckets, each starting {LATE_US / 1e3:g} ms late",
        DDP_MIB,
        0.0,
        LATE_US,
    ),
}
SLOW_ALPHA_S = 1e-3  # exercise 1: a slow per-call cost


def contention_that_doubles_the_wait() -> float:
    """Exercise 2: the smallest contention (in steps of 1%) at which the
    25 MiB-bucket step waits at least twice as long as without any."""
    calm = scenario(DDP_MIB)["exposed"]
    for percent in range(1, 101):
        if scenario(DDP_MIB, percent / 100)["exposed"] >= 2 * calm:
            return percent / 100
    raise ValueError("no contention up to 100% doubles the wait")


def run(name: str) -> dict:
    _, mib, contention, delay = SCENARIOS[name]
    return scenario(mib, contention, delay)


def ms(t: float) -> str:
    return f"{t * 1e3:.3g} ms"


def scenario_table() -> str:
    rows = []
    for name, (label, *_r) in SCENARIOS.items():
        tl = run(name)
        rows.append(
            [label, f"{len(tl['buckets'])}", ms(tl["communication"]), ms(tl["exposed"])]
        )
    header = ["scenario", "buckets", "all-reduce busy", "step waits for communication"]
    return markdown_table(header, rows, "lrrr")


def facts() -> dict[str, str]:
    seconds, n_bytes, _ = llama_8b_tensors()
    out = {
        "alpha": f"{ASSUMED_ALPHA_S * 1e6:g} µs",
        "ddp_mib": f"{DDP_MIB:g} MiB",
        "tensors": f"{len(n_bytes)}",
        "backward": ms(sum(seconds)),
        "embedding": f"{n_bytes[-1] / 1e9:.2g} GB",
    }
    for name in SCENARIOS:
        tl = run(name)
        out[f"{name}.buckets"] = f"{len(tl['buckets'])}"
        out[f"{name}.exposed"] = ms(tl["exposed"])
        out[f"{name}.comm"] = ms(tl["communication"])
    last = run("ddp")["buckets"][-1]
    out["ddp.last"] = ms(last.end - last.start)
    out["ddp.last_share"] = f"{(last.end - last.start) / run('ddp')['exposed']:.0%}"
    tiny = run("tiny")
    out["tiny.alphas"] = ms(len(tiny["buckets"]) * ASSUMED_ALPHA_S)
    out["contention.cost"] = ms(run("contention")["exposed"] - run("ddp")["exposed"])
    out["late.cost"] = ms(run("late")["exposed"] - run("ddp")["exposed"])
    slow_tiny = scenario(1e-6, alpha_s=SLOW_ALPHA_S)
    slow_ddp = scenario(DDP_MIB, alpha_s=SLOW_ALPHA_S)
    out["ex1.alpha"] = ms(SLOW_ALPHA_S)
    out["ex1.tiny"] = ms(slow_tiny["exposed"])
    out["ex1.ddp"] = ms(slow_ddp["exposed"])
    out["ex1.tiny_busy"] = ms(slow_tiny["communication"])
    out["ex2.contention"] = f"{contention_that_doubles_the_wait():.0%}"
    return out


if __name__ == "__main__":
    for name, (label, *_r) in SCENARIOS.items():
        tl = run(name)
        print(f"{label}: {len(tl['buckets'])} buckets, waits {ms(tl['exposed'])}")
