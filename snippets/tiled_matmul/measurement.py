"""The words under the matmul benchmark table, generated from the result.

Shown on docs/kernels/matrix-multiplication/tiled-matmul.md, after the table
rendered from the same result file. Nothing here is typed in advance: with no
result it says so; with a CPU-only result it says what a CPU run cannot show;
with a GPU result it phrases the measured ratios, checks them against the
kernel's goals, and asks the one question the pencil model can put to a
measurement: could HBM alone have delivered every request the tiles make at
the measured speed?

``reading()`` is what the page inserts: it loads the result the table shows
(the newest GPU result holding matmul, else the newest CPU one) and the
catalog's matmul goals through ``evidence``, so every check the build makes
has been made, and calls ``reading_of``. The functions below it are pure:
they take a result (the parsed JSON of a ``results/bench/`` file) and the
goals (the ``goals`` list of the matmul entry in ``results/kernels.json``).
Every string from the file is printed through ``evidence.text.inert``.
"""

import math
from pathlib import Path

from evidence import ROOT, read
from evidence.benchmarks import CATALOG, load_results, newest, stale_changes
from evidence.text import inert
from snippets.tiled_matmul.traffic import operand_request_bytes

KERNEL = "matmul"
CUSTOM = "triton"
BASELINES = ("eager", "compile")


def reading(
    *, results_dir: Path | None = None, root: Path = ROOT, catalog: Path | None = None
) -> str:
    """The words under the matmul table, from the same result file the table
    shows, checked against the catalog's matmul goals; a row without an M,
    N, K shape is reported as not measured."""
    root = Path(root)
    result = newest(load_results(results_dir, root), KERNEL)
    catalog = Path(catalog) if catalog is not None else Path(root) / CATALOG
    entry = None
    if catalog.is_file():
        entry = read("catalog", catalog, root).data["kernels"].get(KERNEL)
    goals = (entry or {}).get("goals", [])
    if result is None:
        return reading_of(None, goals)
    note = ""
    if stale_changes(result, KERNEL, root):
        note = ", from an older version of the kernel (see the stale note)"
    # A row without M, N and K names no shape: not measured, never a crash.
    data = dict(result.data)
    data["rows"] = [row for row in data["rows"] if _has_shape(row)]
    text = reading_of(data, goals, source_note=note)
    skipped = len(result.data["rows"]) - len(data["rows"])
    if skipped:
        text += (
            f"\n\n{skipped} of the file's rows name no M, N and K shape: those "
            "are not measured here."
        )
    return text


def _has_shape(row: dict) -> bool:
    if row.get("kernel") != KERNEL:
        return True
    try:
        _shape(row)
    except ValueError:
        return False
    return True


def goal_levels(goals) -> tuple[dict[tuple[int, int, int], float], float | None]:
    """From the catalog's goals, the "must" levels this reading checks:
    R = best baseline time / custom time, per shape, and F, the fraction of
    the measured matmul ceiling (None where no goal is set)."""
    r_goals: dict[tuple[int, int, int], float] = {}
    f_goal = None
    for goal in goals or ():
        for target in goal.get("must", ()):
            shape = target.get("shape")
            if target.get("metric") == "R" and shape:
                r_goals[(shape["M"], shape["N"], shape["K"])] = target["at_least"]
            elif target.get("metric") == "F_flop" and not shape:
                f_goal = target["at_least"]
    return r_goals, f_goal


def _rows(result: dict) -> list[dict]:
    rows = result.get("rows")
    if not isinstance(rows, list):
        raise ValueError("result has no 'rows' list")
    return [row for row in rows if row.get("kernel") == KERNEL]


def _shape(row: dict) -> tuple[int, int, int]:
    shape = row.get("shape") or {}
    try:
        return int(shape["M"]), int(shape["N"]), int(shape["K"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"matmul row has no M, N, K shape: {shape!r}") from exc


def _fmt_shape(shape: tuple[int, int, int]) -> str:
    return " × ".join(str(size) for size in shape)


def _timed(row: dict) -> bool:
    return bool(row.get("timed")) and row.get("status") == "ok"


def request_verdict(row: dict, copy_bytes_per_s: float | None) -> str:
    """Could HBM alone have served every operand request at the measured
    speed? Take the fastest copy of the same run as what HBM can move (the
    project's plausibility bound): if the requests divided by the measured
    time exceed it, the excess must have come from on-chip caches."""
    M, N, K = _shape(row)
    # The tile of the launch that ran (what record_launches() captured).
    config = next(
        (
            launch.get("constexprs") or {}
            for launch in row.get("launches") or ()
            if "BLOCK_M" in (launch.get("constexprs") or {})
        ),
        {},
    )
    itemsize = {"bfloat16": 2, "float16": 2, "float32": 4}.get(row.get("dtype"))
    if "BLOCK_M" not in config or "BLOCK_N" not in config or itemsize is None:
        return ""
    if not copy_bytes_per_s:
        return ""
    bm, bn = config["BLOCK_M"], config["BLOCK_N"]
    requests = operand_request_bytes(M, N, K, bm, bn, itemsize)
    seconds = row["median_ms"] * 1e-3
    rate = requests / seconds
    start = (
        f"Its {bm} × {bn} tiles request {requests / 1e9:.3g} GB of operands; "
        f"over the measured median that is {rate / 1e12:.3g} TB/s, against "
        f"{copy_bytes_per_s / 1e12:.3g} TB/s for the fastest copy in the "
        "same run"
    )
    if rate > copy_bytes_per_s:
        served_on_chip = 1 - copy_bytes_per_s * seconds / requests
        return (
            f"{start}, so at least {served_on_chip:.0%} of the requested "
            "bytes cannot have come from HBM: L2 served them, as the "
            "derivation says it can."
        )
    return (
        f"{start}, which HBM could have served alone: the time does not "
        "show whether L2 caught the repeats; a profiler's DRAM byte counters "
        "would."
    )


def _shape_reading(
    rows: list[dict], copy_bytes_per_s: float | None, goals: tuple
) -> str:
    """One paragraph for one shape's rows (all providers)."""
    by_provider = {row.get("provider"): row for row in rows}
    shape = _shape(rows[0])
    custom = by_provider.get(CUSTOM)
    where = _fmt_shape(shape)
    if custom is None:
        return f"At {where} the result has no row for the custom kernel."
    if not _timed(custom):
        status = custom.get("status", "unknown")
        reason = custom.get("reason") or custom.get("error") or ""
        return (
            # status is one of the schema's enum values; reason is free text
            f"At {where} the custom kernel's row has status `{status}`"
            + (f" ({inert(reason)})" if reason else "")
            + ": no speed is read from it."
        )
    timed_baselines = [
        by_provider[name]["median_ms"]
        for name in BASELINES
        if name in by_provider and _timed(by_provider[name])
    ]
    parts = [f"At {where} the custom kernel took {custom['median_ms']:.3g} ms"]
    r_goals, f_goal = goals
    fraction = custom.get("fraction_of_ceiling")
    if isinstance(fraction, int | float) and math.isfinite(fraction):
        parts.append(
            f", {fraction:.0%} of the bf16 matmul ceiling measured in the same run"
        )
        if f_goal is not None:
            met = "meets" if fraction >= f_goal else "misses"
            parts.append(f" ({met} the goal of {f_goal:.0%})")
    if timed_baselines:
        ratio = min(timed_baselines) / custom["median_ms"]
        goal = r_goals.get(shape)
        faster = "faster" if ratio >= 1 else "slower"
        parts.append(
            f"; the faster of eager and torch.compile took "
            f"{min(timed_baselines):.3g} ms, so R = {ratio:.2f} "
            f"(the custom kernel is {faster})"
        )
        if goal is not None:
            met = "meets" if ratio >= goal else "misses"
            parts.append(f", which {met} the goal R ≥ {goal:.2f} for this shape")
    paragraph = "".join(parts) + "."
    verdict = request_verdict(custom, copy_bytes_per_s)
    return paragraph + (" " + verdict if verdict else "")


def reading_of(result: dict | None, goals=(), source_note: str = "") -> str:
    """The reading of one result (None: nothing measured), checked against
    the catalog's matmul goals."""
    if result is None:
        return (
            "No GPU measurement of matmul has been published yet, so this "
            "page states no speed. The derivation above says what to look "
            "for when one exists: the fraction of the measured matmul "
            "ceiling, and whether the requests could all have come from HBM."
        )
    rows = _rows(result)
    if not rows:
        return "The newest result has no matmul rows."
    device = result.get("device") or {}
    kind = (result.get("identity") or {}).get("device_kind") or device.get("kind")
    if kind == "cpu":
        return (
            "The only matmul result so far is that CPU run, on "
            f"{inert(device.get('name') or 'an unnamed CPU')}: it shows the pipeline "
            "works and that the kernel's values are right in the interpreter, "
            "and it says nothing about speed on a GPU. No GPU measurement of "
            "matmul has been published yet."
        )
    software = result.get("software") or {}
    header = (
        f"Measured on {inert(device.get('name', 'an unnamed GPU'))} with torch "
        f"{inert(software.get('torch', '?'))} and Triton "
        f"{inert(software.get('triton', '?'))}"
        f"{source_note}."
    )
    shapes: dict[tuple, list[dict]] = {}
    for row in rows:
        shapes.setdefault(_shape(row), []).append(row)
    # The fastest copy sample: the most HBM was seen to move in this run.
    copy = ((result.get("ceilings") or {}).get("copy") or {}).get(
        "best_bandwidth_bytes_per_s"
    )
    levels = goal_levels(goals)
    paragraphs = [header] + [
        _shape_reading(group, copy, levels) for group in shapes.values()
    ]
    return "\n\n".join(paragraphs)
