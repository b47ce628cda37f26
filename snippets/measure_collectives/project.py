"""The project page's readings of the committed collectives run
(results/collectives/*.json, CPU evidence) and what the same alpha-beta
model predicts over NVLink and InfiniBand from the link figures."""

from __future__ import annotations

from pathlib import Path

from evidence import RESULTS_DIR, read
from evidence.tables import markdown_table
from evidence.text import inert
from kernels.interconnects import (
    GPUS_PER_NODE,
    INFINIBAND_NDR,
    NICS_PER_NODE,
    NVLINK4_H200,
)
from snippets.lib.collectives import (
    AlphaBeta,
    bus_factor,
    fmt_bytes,
    fmt_rate,
    fmt_seconds,
    group_wire,
)

RUNS = RESULTS_DIR / "collectives"
#: Sizes for the predictions: a 25 MiB DDP bucket and Llama-3 8B's bf16
#: gradients are the page's, a 1 GiB buffer the lesson's.
PREDICTION_SIZES = (25 * 2**20, 2**30)
#: Exercise 3: a size beyond the sweep, to see what extrapolation claims.
EXTRAPOLATED_SIZE = 64 * 2**20


def committed_run(folder: Path = RUNS) -> dict:
    """The newest committed run (names sort by start time)."""
    paths = sorted(folder.glob("*.json"))
    if not paths:
        raise FileNotFoundError(f"no collectives run under {folder}")
    return read("collectives", paths[-1]).data


def fit(run: dict, collective: str = "all_reduce", world: int = 2) -> dict:
    for f in run["fits"]:
        if f["collective"] == collective and f["world"] == world:
            return f
    raise KeyError(f"the run has no fit for {collective} at {world} ranks")


def model_of(f: dict) -> AlphaBeta:
    return AlphaBeta(f["alpha_s"], f["beta_s_per_byte"])


def fit_table(run: dict | None = None) -> str:
    """One row per fit: alpha, the rate 1/beta (bytes/s of buffer, not yet
    multiplied by the bus factor) and the error on held-back sizes."""
    run = run or committed_run()
    cpus = run["device"].get("logical_cpus")
    rows = []
    for f in run["fits"]:
        rate = f["beta_s_per_byte"]
        shared = cpus is not None and f["world"] > cpus
        rows.append(
            [
                f["collective"],
                f"{f['world']}{' (more ranks than CPUs)' if shared else ''}",
                fmt_seconds(f["alpha_s"]),
                fmt_rate(1 / rate) if rate > 0 else "not resolved",
                f"{f['held_back_mean_rel_error']:.0%}",
                f"{f['held_back_max_rel_error']:.0%}",
            ]
        )
    header = [
        "collective",
        "ranks",
        "alpha",
        "1 / beta",
        "held-back error, mean",
        "max",
    ]
    return markdown_table(header, rows, "llrrrr")


def held_back_table(
    run: dict | None = None, collective: str = "all_reduce", world: int = 2
) -> str:
    run = run or committed_run()
    f = fit(run, collective, world)
    model = model_of(f)
    measured = {
        m["size"]: m["seconds"]
        for m in run["measurements"]
        if m["collective"] == collective and m["world"] == world
    }
    rows = []
    for size in sorted(measured):
        role = "held back" if size in f["held_back_sizes"] else "fitted"
        t = measured[size]
        rows.append(
            [
                fmt_bytes(size),
                role,
                fmt_seconds(t),
                fmt_seconds(model.seconds(size)),
                f"{abs(model.seconds(size) - t) / t:.0%}",
            ]
        )
    header = ["size", "role", "measured (CPU)", "alpha-beta", "error"]
    return markdown_table(header, rows, "llrrr")


def prediction_table(world_nvlink: int = 8, nodes: int = 4) -> str:
    """Wire time at the links' published rates, by placement: one node with
    NVLS and with a ring, `nodes` full nodes over all their NICs, and as many
    GPUs one to a node. No alpha: no measurement of a per-call cost on those
    links exists here."""
    links = (
        NVLINK4_H200.per_direction_bytes_per_s,
        INFINIBAND_NDR.per_direction_bytes_per_s,
        NICS_PER_NODE,
    )
    world = nodes * GPUS_PER_NODE
    rows = []
    for size in PREDICTION_SIZES:
        places = [
            group_wire("all_reduce", world_nvlink, size, world_nvlink, links),
            group_wire("all_reduce", world_nvlink, size, world_nvlink, links, False),
            group_wire("all_reduce", world, size, GPUS_PER_NODE, links),
            group_wire("all_reduce", world, size, 1, links),
        ]
        rows.append([fmt_bytes(size), *(fmt_seconds(p["seconds"]) for p in places)])
    header = [
        "all-reduce size",
        f"{world_nvlink} GPUs, one node, NVLS",
        f"{world_nvlink} GPUs, one node, ring",
        f"{nodes} nodes of {GPUS_PER_NODE}, {NICS_PER_NODE} NICs a node",
        f"{world} nodes of 1, one NIC each",
    ]
    return markdown_table(header, rows, "lrrrr")


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def powers_of_ten(x: float) -> str:
    """A small positive number for prose: 2.4 × 10⁻⁷, not 2.4e-07."""
    if x == 0:
        return "0"
    mantissa, exponent = f"{x:.1e}".split("e")
    mantissa = mantissa.removesuffix(".0")
    power = f"10{str(int(exponent)).translate(SUPERSCRIPT)}"
    return power if mantissa == "1" else f"{mantissa} × {power}"


def facts() -> dict[str, str]:
    run = committed_run()
    f = fit(run)
    model = model_of(f)
    dp = run["data_parallel"]
    implied = bus_factor("all_reduce", 2) / f["beta_s_per_byte"]
    f4 = fit(run, "all_reduce", 4)
    implied4 = bus_factor("all_reduce", 4) / f4["beta_s_per_byte"]
    sizes = run["settings"]["sizes"]
    predicted = model.seconds(dp["gradient_bytes"])
    return {
        "backend": inert(run["settings"]["backend"]),
        "device": inert(run["device"]["name"]),
        "cpus": f"{run['device'].get('logical_cpus')}",
        "worlds": " and ".join(str(w) for w in run["settings"]["world_sizes"]),
        "sizes": f"{fmt_bytes(min(sizes))} to {fmt_bytes(max(sizes))}",
        "iters": f"{run['settings']['iters']}",
        "commit": inert(run["identity"]["commit"][:10]),
        "alpha": fmt_seconds(f["alpha_s"]),
        "beta_rate": fmt_rate(1 / f["beta_s_per_byte"]),
        "busbw": fmt_rate(implied),
        "held_mean": f"{f['held_back_mean_rel_error']:.0%}",
        "held_max": f"{f['held_back_max_rel_error']:.0%}",
        "nvlink_over_cpu": f"{NVLINK4_H200.per_direction_bytes_per_s / implied:.0f}",
        "ex1.rate4": fmt_rate(1 / f4["beta_s_per_byte"]),
        "ex1.factor4": f"{bus_factor('all_reduce', 4):g}",
        "ex1.busbw4": fmt_rate(implied4),
        "ex3.size": fmt_bytes(EXTRAPOLATED_SIZE),
        "ex3.predicted": fmt_seconds(model.seconds(EXTRAPOLATED_SIZE)),
        "largest": fmt_bytes(max(sizes)),
        "nvlink": fmt_rate(NVLINK4_H200.per_direction_bytes_per_s),
        "dp.diff": powers_of_ten(dp["max_abs_weight_difference"]),
        "dp.tolerance": powers_of_ten(dp["tolerance"]),
        "dp.bytes": fmt_bytes(dp["gradient_bytes"]),
        "dp.measured": fmt_seconds(dp["all_reduce_seconds"]),
        "dp.predicted": fmt_seconds(predicted),
        "dp.ratio": f"{dp['all_reduce_seconds'] / predicted:.2f}",
        "dp.matches": "match" if dp["matches"] else "do not match",
    }


if __name__ == "__main__":
    run = committed_run()
    print(f"committed run: {run['settings']['backend']} on {run['device']['name']}")
    for f in run["fits"]:
        alpha = fmt_seconds(f["alpha_s"])
        print(f"  {f['collective']:>14}, {f['world']} ranks: alpha {alpha}")
