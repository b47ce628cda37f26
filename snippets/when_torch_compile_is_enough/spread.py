"""Eager against torch.compile across the committed comparison runs.

Reads every ``*-compare-*.json`` in results/bench (the qualification
project's comparison: eager, compiled and custom at three shapes) directly as
JSON, without the results tools (a snippet never imports them), and answers
one question: at which shapes does the order of the two medians hold in
every run, with bands that do not overlap?
"""

from __future__ import annotations

import json
from pathlib import Path

from evidence.text import inert

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results" / "bench"


def runs(folder: Path = RESULTS, gpu: bool = False) -> list[dict]:
    """Every comparison run on a CPU (or, with gpu=True, on a GPU), oldest
    first: its name and eager's and compile's (median, p20, p80) per shape.
    Runs on different devices are never pooled."""
    found = []
    for path in sorted(folder.glob("*-compare-*.json")):
        data = json.loads(path.read_text())
        if (data["identity"]["device_kind"] == "cuda") != gpu:
            continue
        timings: dict[str, dict[str, tuple[float, float, float]]] = {}
        for row in data["rows"]:
            if row.get("timed") and row["provider"] in ("eager", "compile"):
                timings.setdefault(row["shape_text"], {})[row["provider"]] = (
                    row["median_ms"],
                    row["p20_ms"],
                    row["p80_ms"],
                )
        found.append(
            {
                "name": path.name,
                "gpu": data["identity"]["device_kind"] == "cuda",
                "timings": timings,
            }
        )
    return found


# --8<-- [start:verdict]
def faster(eager: tuple, compiled: tuple) -> str:
    """Which of two (median, p20, p80) is faster, or "tie" when the p20-p80
    bands overlap: a median alone cannot call a winner inside the noise."""
    if eager[2] < compiled[1]:
        return "eager"
    if compiled[2] < eager[1]:
        return "compile"
    return "tie"


# --8<-- [end:verdict]


def verdicts(found: list[dict]) -> dict[str, list[str]]:
    """shape -> the verdict of each run, oldest first."""
    table: dict[str, list[str]] = {}
    for run in found:
        for shape, t in run["timings"].items():
            if "eager" in t and "compile" in t:
                table.setdefault(shape, []).append(faster(t["eager"], t["compile"]))
    return table


def median_order_flips(found: list[dict]) -> list[str]:
    """Shapes where the faster median differs between two runs."""
    flips = []
    for shape in verdicts(found):
        orders = {
            t[shape]["eager"][0] < t[shape]["compile"][0]
            for t in (r["timings"] for r in found)
            if shape in t and {"eager", "compile"} <= t[shape].keys()
        }
        if len(orders) > 1:
            flips.append(shape)
    return flips


def _ms(value: float) -> str:
    return f"{value * 1e3:.0f} µs" if value < 1 else f"{value:.2f} ms"


def runs_table(folder: Path = RESULTS, gpu: bool = False) -> str:
    """One row per run and shape: both medians, their bands, the verdict."""
    lines = [
        "| Run | Shape | eager median (p20–p80) | compile median (p20–p80) | Verdict |",
        "| --- | --- | --- | --- | --- |",
    ]
    found = runs(folder, gpu)
    if not found:
        return f"No {'GPU' if gpu else 'CPU'} comparison run is committed yet.\n"
    for run in found:
        for shape, t in run["timings"].items():
            if {"eager", "compile"} <= t.keys():
                e, c = t["eager"], t["compile"]
                lines.append(
                    f"| <code>{inert(run['name'][:16])}</code> | {inert(shape)} "
                    f"| {_ms(e[0])} "
                    f"({_ms(e[1])}–{_ms(e[2])}) | {_ms(c[0])} ({_ms(c[1])}–{_ms(c[2])})"
                    f" | {faster(e, c)} |"
                )
    return "\n".join(lines) + "\n"


def fmt_spread(field: str, folder: Path = RESULTS) -> str:
    """Facts for the prose, each computed from the committed runs."""
    found = runs(folder)
    table = verdicts(found)
    flips = median_order_flips(found)
    steady = [s for s, v in table.items() if len(set(v)) == 1 and v[0] != "tie"]
    return {
        "runs": str(len(found)),
        "gpu_runs": str(len(runs(folder, gpu=True))),
        "flips": ", ".join(inert(f) for f in flips) or "none",
        "steady": ", ".join(f"{inert(s)} ({table[s][0]})" for s in steady) or "none",
    }[field]


def exercise_answer(folder: Path = RESULTS) -> str:
    """Shapes where a winner can be named in every run, and which."""
    table = verdicts(runs(folder))
    named = {s: v[0] for s, v in table.items() if len(set(v)) == 1 and v[0] != "tie"}
    if not named:
        return "none: every shape ties or changes verdict between runs"
    return "; ".join(
        f"{inert(shape)}: {who} in every run" for shape, who in named.items()
    )


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "spread.flips": fmt_spread("flips"),
        "spread.runs": fmt_spread("runs"),
        "spread.steady": fmt_spread("steady"),
    }


def facts() -> dict[str, str]:
    """Every value the page states, formatted, by name."""
    return page_facts()


if __name__ == "__main__":
    found = runs()
    print(f"{len(found)} comparison runs ({fmt_spread('gpu_runs')} on a GPU)")
    for shape, verdict in verdicts(found).items():
        print(f"{shape:>10}: {', '.join(verdict)}")
    print(f"median order flips at: {fmt_spread('flips')}")
