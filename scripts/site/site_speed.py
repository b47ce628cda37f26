"""The speed budgets' committed measurements as a table
(``results/site_speed/*.json``, written by ``python -m scripts.bench site``).

One row per budget, one column pair per run (newest first): the figure with
its share of the budget, and the figure as a multiple of the calibration
task timed beside it, which is what stays put when the machine is busy.
"""

from __future__ import annotations

from pathlib import Path

from evidence import RESULTS_DIR, read
from evidence.tables import markdown_table
from evidence.text import inert

FOLDER = RESULTS_DIR / "site_speed"
#: Runs shown side by side, newest first.
SHOWN_RUNS = 3


def runs(folder: Path = FOLDER) -> list[dict]:
    """The committed runs, newest first (a malformed file fails the build)."""
    loaded = [read("site_speed", path).data for path in sorted(folder.glob("*.json"))]
    return sorted(loaded, key=lambda d: d["identity"]["started_utc"], reverse=True)


def _cell(entry: dict | None) -> tuple[str, str]:
    if entry is None:
        return "not run", ""
    if entry["status"] != "measured":
        return entry["status"], ""
    share = entry["seconds"] / entry["budget_s"]
    ratio = entry["seconds"] / entry["calibration_s"]
    return f"{entry['seconds']:.2f} s ({share:.0%})", f"{ratio:.1f}×"


def _heading(run: dict) -> str:
    """The run's day and the machine's load while it measured: the median
    one-minute load average taken after each figure (the load before the run
    is a minute old when the run starts)."""
    loads = sorted(e["load"][0] for e in run["measurements"] if "load" in e)
    load = loads[len(loads) // 2] if loads else run["machine"]["load_after"][0]
    day = run["identity"]["started_utc"][:10]
    return f"{day}, load {load:.1f}"


def speed_table(folder: Path = FOLDER) -> str:
    shown = runs(folder)[:SHOWN_RUNS]
    if not shown:
        return "No run of `python -m scripts.bench site` is committed yet."
    names: list[tuple[str, float, str, str]] = []
    for run in shown:
        for e in run["measurements"]:
            row = (e["name"], e["budget_s"], e["clock"], e["width"])
            if row not in names:
                names.append(row)
    header = ["budget", "limit", "clock, width"]
    for run in shown:
        header += [_heading(run), "× calibration"]
    rows = []
    for name, budget, clock, width in names:
        row = [name.replace("_", " "), f"{budget:g} s", f"{clock}, {width}"]
        for run in shown:
            found = [e for e in run["measurements"] if e["name"] == name]
            row += _cell(found[0] if found else None)
        rows.append(row)
    return markdown_table(header, rows, "llc" + "rr" * len(shown))


def facts(folder: Path = FOLDER) -> dict[str, str]:
    """The newest run's machine and calibration, for the sentence above the
    table."""
    shown = runs(folder)
    if not shown:
        return {"machine": "no machine yet", "cores": "0", "calibration_s": "0"}
    newest = shown[0]
    one = sorted(newest["calibration"]["widths"]["one"])
    return {
        "machine": inert(newest["machine"]["name"]),  # from a file: never markup
        "cores": str(newest["machine"]["logical_cpus"]),
        "calibration_s": f"{one[len(one) // 2]:.2f} s",
    }
