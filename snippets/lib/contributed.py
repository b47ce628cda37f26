"""Runs readers contributed from nccl-tests, vLLM and SGLang, as tables the
collectives lesson and the serving-engine project show beside their own
evidence (docs/foundations/beyond-one-gpu/collectives-and-their-cost.md,
docs/inference/serving-engine.md).

Each row is one contributed run, tagged with its source tool; a table of
contributed runs never holds a row of ours, and ours never holds theirs: our
model's line and the datasheet's rate sit in their own columns, each named
for its kind of evidence. Files come from ``results/contributed/`` through
``evidence.contributed.load_folder`` (every check, every string inert).
"""

from __future__ import annotations

from pathlib import Path

from evidence.contributed import load_folder
from evidence.tables import markdown_table
from evidence.text import inert
from kernels.interconnects import LINKS
from snippets.lib.collectives import bus_factor, fmt_bytes, fmt_rate, ring_seconds


def _algorithm(run: dict) -> str:
    env = run["settings"]["nccl_env"]
    return inert(env.get("NCCL_ALGO", "NCCL's choice"))


def collectives_rows(run: dict, hop_s: float) -> list:
    """One row for a run: its largest message, its bandwidths there, the
    link's datasheet rate, and what the ring model gives at that size."""
    device, settings = run["device"], run["settings"]
    row = run["rows"][-1]
    timing = row["out_of_place"]
    link = LINKS[device["link"]]
    n, name = device["ranks"], settings["collective"]
    model_t = ring_seconds(
        name, n, row["size_bytes"], hop_s, link.per_direction_bytes_per_s
    )
    model_busbw = bus_factor(name, n) * row["size_bytes"] / model_t
    p99 = timing.get("p99_us")
    return [
        f"{inert(device['name'])}, {inert(link.short)}",
        f"{n} ({device['hosts']})",
        f"{inert(name)} ({_algorithm(run)})",
        fmt_bytes(row["size_bytes"]),
        fmt_rate(timing["busbw_bytes_per_s"]),
        fmt_rate(timing["algbw_bytes_per_s"]),
        f"{p99 / timing['time_us']:.2f}" if p99 else "-",
        inert(
            f"nccl-tests {run['identity']['tool_version']}, NCCL "
            f"{run['identity']['nccl_version']}"
        ),
        fmt_rate(link.per_direction_bytes_per_s),
        fmt_rate(model_busbw),
    ]


# Ten columns, headers short enough to wrap: the table fits the desktop
# column (1280 px) with no sideways scroll.
COLLECTIVES_HEADER = [
    "device, link",
    "ranks (hosts)",
    "collective (algorithm)",
    "largest message",
    "busbw (contributed)",
    "algbw (contributed)",
    "p99 / mean time",
    "tools",
    "link per direction (datasheet)",
    "ring busbw (model)",
]


def collectives_table(hop_s: float, folder: Path | None = None) -> str:
    """Contributed nccl-tests runs, one row each, grouped by device and link."""
    runs = load_folder("contributed_collectives", folder)
    runs.sort(key=lambda r: (r["device"]["name"], r["device"]["link"]))
    rows = [collectives_rows(run, hop_s) for run in runs] or [["-"] * 10]
    return markdown_table(COLLECTIVES_HEADER, rows, "lllrrrrlrr", escape=False)


def _ms(latency: dict, metric: str, stat: str) -> str:
    value = latency.get(metric, {}).get(stat)
    if value is None:
        return "-"
    return f"{value:.3g} s" if value >= 1 else f"{value * 1e3:.3g} ms"


def _rate(value) -> str:
    return "inf" if value is None else f"{value:g} req/s"  # the tools' word


def serving_row(run: dict) -> list:
    s, settings, ident = run["summary"], run["settings"], run["identity"]
    lat = s["latency_s"]
    goodput = s.get("request_goodput")
    slo = ", ".join(f"{k} {v:g} ms" for k, v in settings.get("slo_ms", {}).items())
    return [
        inert(f"{run['source']} ({ident['engine']} {ident['engine_version']})"),
        inert(f"{run['device']['count']} x {run['device']['name']}"),
        inert(settings["model"]),
        _rate(settings["request_rate"]),
        str(s["completed"]),
        f"{_ms(lat, 'ttft', 'median')} / {_ms(lat, 'ttft', 'p99')}",
        f"{_ms(lat, 'tpot', 'median')} / {_ms(lat, 'tpot', 'p99')}",
        _ms(lat, "itl", "p99"),
        _ms(lat, "e2el", "p99"),
        f"{s['request_throughput']:.3g}",
        "-" if goodput is None else inert(f"{goodput:.3g} ({slo})"),
    ]


SERVING_HEADER = [
    "source (measured, contributed)",
    "GPUs",
    "model",
    "offered",
    "requests",
    "TTFT p50 / p99",
    "TPOT p50 / p99",
    "ITL p99",
    "E2E p99",
    "req/s",
    "goodput, req/s (SLO)",
]


def serving_table(folder: Path | None = None) -> str:
    """Contributed vLLM and SGLang runs, one row each."""
    runs = load_folder("contributed_serving", folder)
    runs.sort(key=lambda r: (r["source"], r["device"]["name"]))
    rows = [serving_row(run) for run in runs] or [["-"] * 11]
    return markdown_table(SERVING_HEADER, rows, "lllrrrrrrrr", escape=False)


def facts(folder_collectives=None, folder_serving=None) -> dict[str, str]:
    """How many runs each table holds."""
    return {
        "collectives_runs": str(
            len(load_folder("contributed_collectives", folder_collectives))
        ),
        "serving_runs": str(len(load_folder("contributed_serving", folder_serving))),
    }


if __name__ == "__main__":
    print(facts())
