"""The kernels' goals, from the catalog (``results/kernels.json``).

``<!-- insert: scripts/site/bench_goals.py:goals_table() -->`` on the
Benchmarks page: one row per kernel and regime, the "must" and "stretch"
targets as ``target_label`` words them (the decision memo uses it too).
"""

from __future__ import annotations

from pathlib import Path

from evidence import ROOT, read
from evidence.tables import markdown_table

CATALOG = ROOT / "results" / "kernels.json"


def load_catalog(path: Path | None = None, root: Path = ROOT) -> dict | None:
    """The kernel catalog (results/kernels.json, written by
    ``python -m scripts.catalog``), or None while it does not exist."""
    path = Path(path) if path is not None else CATALOG
    if not path.exists():
        return None
    return read("catalog", path, root).data


def target_label(target: dict) -> str:
    """One goal as the table prints it: "R ≥ 0.95", "≥ 1.4× eager"."""
    level = target["at_least"]
    if target["metric"] == "speedup_vs_eager":
        text = f"≥ {level:g}× eager"
    else:
        text = f"{target['metric']} ≥ {level:.2f}"
    shape = target.get("shape")
    if shape:
        sizes = list(shape.values())
        same = len(set(sizes)) == 1 and len(sizes) == 3
        text += f" at {sizes[0]}³" if same else " at " + "×".join(map(str, sizes))
    if target.get("note"):
        text += f" {target['note']}"
    return text


def goals_table(catalog: Path | None = None, root: Path = ROOT) -> str:
    """The goals of every kernel, one row per regime, from the catalog."""
    data = load_catalog(catalog, root)
    if data is None:
        return (
            "The goals table is not available: `results/kernels.json` has not "
            "been written yet (`make catalog` writes it from the kernels' "
            "descriptors).\n"
        )
    rows = [
        [
            entry["title"],
            goal.get("regime") or "—",
            ", ".join(target_label(t) for t in goal["must"]),
            ", ".join(target_label(t) for t in goal.get("stretch", ())) or "—",
        ]
        for entry in data["kernels"].values()
        for goal in entry.get("goals", ())
    ]
    return markdown_table(["Kernel", "Where", "Must", "Stretch"], rows) + "\n"
