"""What a timer sees, and what the project's committed runs recorded
(docs/kernels/where-time-goes/timing-gpu-work.md).

Standard library only. The numbers about real runs come from the committed
benchmark files in ``results/bench/``; today those are CPU runs, host
timings of CPU code, so they teach first calls and spread, never GPU speed.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from evidence.text import inert

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "results" / "bench"
TIMER = "scripts/bench/timing.py"


# --8<-- [start:async-model]
def host_timer_reads(launch_us: float, kernel_us: float, calls: int) -> dict:
    """What a host clock reads around `calls` back-to-back launches, in µs.

    The host only enqueues work: each launch returns after `launch_us`,
    while the GPU runs the kernels one after another, each `kernel_us`
    long (and never before it was enqueued)."""
    if calls < 1 or launch_us < 0 or kernel_us < 0:
        raise ValueError("calls must be >= 1 and times >= 0")
    host_done = calls * launch_us
    gpu_done = 0.0
    for i in range(calls):
        enqueued = (i + 1) * launch_us
        gpu_done = max(gpu_done, enqueued) + kernel_us
    return {
        "no sync": host_done,  # the launches, not the kernels
        "sync at end": max(host_done, gpu_done),
        "per call, sync at end": max(host_done, gpu_done) / calls,
    }


# --8<-- [end:async-model]


def fmt_async(launch_us: float, kernel_us: float, calls: int) -> str:
    reads = host_timer_reads(launch_us, kernel_us, calls)
    return (
        f"{reads['no sync']:g} µs without a synchronize and "
        f"{reads['sync at end']:g} µs with one"
    )


# --8<-- [start:graph-model]
def launch_share(kernel_us: float, launch_us: float) -> float:
    """Share of each step lost to launching when launches cannot hide
    behind the previous kernel (kernel shorter than a launch)."""
    step = max(kernel_us, launch_us)
    return (step - kernel_us) / step


# --8<-- [end:graph-model]


# ------------------------------------------------------ the committed runs


def newest_compare(bench: Path = BENCH) -> dict:
    """The newest committed `compare` run (by start time)."""
    runs = []
    for path in sorted(Path(bench).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["identity"].get("profile") == "compare":
            runs.append((data["identity"]["started_utc"], path.name, data))
    if not runs:
        raise FileNotFoundError(f"no compare run in {bench}")
    return max(runs)[2]


def _row(data: dict, shape: str, provider: str) -> dict:
    for row in data["rows"]:
        if row["shape_text"] == shape and row["provider"] == provider:
            return row
    raise KeyError(f"no row {shape} {provider}")


def fmt_ms(ms: float) -> str:
    if ms >= 1:
        return f"{ms:,.4g} ms"
    return f"{ms * 1e3:.3g} µs"


def run_facts(shape: str = "1024×1024", provider: str = "compile") -> dict[str, str]:
    """Facts about the newest committed compare run (a CPU run today)."""
    data = newest_compare()
    row = _row(data, shape, provider)
    values = {
        "device": inert(data["device"]["name"]),
        "kind": data["identity"]["device_kind"],
        "timer": inert(row["timer"]),
        "first": fmt_ms(row["first_call_ms"]),
        "median": fmt_ms(row["median_ms"]),
        "p20": fmt_ms(row["p20_ms"]),
        "p80": fmt_ms(row["p80_ms"]),
        "ratio": f"{row['first_call_ms'] / row['median_ms']:,.0f}×",
        "samples": str(len(row["samples_ms"])),
        "rounds": str(row["rounds"]),
        "repeats": str(row["repeats"]),
        "slowest": fmt_ms(max(row["samples_ms"])),
        "fastest": fmt_ms(min(row["samples_ms"])),
        "warmup": fmt_ms(row["warmup_ms"]),
        "warmup_calls": f"{row['warmup_calls']:,}",
    }
    return values


def function_excerpt(name: str, path: str = TIMER) -> str:
    """One function of a project file, as a titled excerpt block. Read
    with ast, so the page follows the file when lines move."""
    source = (ROOT / path).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            code = ast.get_source_segment(source, node)
            return f'```python title="{path} (excerpt)"\n{code}\n```'
    raise KeyError(f"{path} has no function {name!r}")


def lines_excerpt(start: str, stop: str, path: str = TIMER) -> str:
    """The lines of a project file from the first containing `start` to the
    first after it containing `stop`, as a titled excerpt block."""
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if start in line)
    last = next(i for i in range(first, len(lines)) if stop in lines[i])
    body = lines[first : last + 1]
    indent = min(len(x) - len(x.lstrip()) for x in body if x.strip())
    code = "\n".join(x[indent:] for x in body)
    return f'```python title="{path} (excerpt)"\n{code}\n```'


# --------------------------------------------------------------- exercises

EXERCISE = {"launch_us": 5.0, "kernel_us": 2.0, "calls": 100}


def exercise_facts() -> dict[str, str]:
    e = EXERCISE
    reads = host_timer_reads(e["launch_us"], e["kernel_us"], e["calls"])
    return {
        "launch": f"{e['launch_us']:g} µs",
        "kernel": f"{e['kernel_us']:g} µs",
        "calls": str(e["calls"]),
        "no_sync": f"{reads['no sync']:g} µs",
        "per_call": f"{reads['per call, sync at end']:g} µs",
        "share": f"{launch_share(e['kernel_us'], e['launch_us']):.0%}",
    }


# --8<-- [start:flush-cover]
def flush_seconds(l2_bytes: int, hbm_bytes_per_s: float, multiple: int) -> float:
    """How long the timer's L2 flush keeps the GPU busy at best: a read of
    `multiple` x L2 at the HBM's datasheet bandwidth. While it runs, the
    host has time to enqueue the begin event and the timed call, so the
    begin event is not reached on an idle stream."""
    return multiple * l2_bytes / hbm_bytes_per_s
    # --8<-- [end:flush-cover]


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "async.5.0.50.0.10": fmt_async(5.0, 50.0, 10),
    }


def facts() -> dict[str, str]:
    """Every value the page states by name, formatted for prose; a page
    reads one as ``<!-- fact: <this file>:run.median -->``."""
    from evidence.method import METHOD
    from kernels.devices import H200

    out = {**page_facts(), **{f"run.{k}": v for k, v in run_facts().items()}}
    out.update({f"exercise.{k}": v for k, v in exercise_facts().items()})
    multiple = METHOD["flush_l2_multiple"]
    out["flush.multiple"] = f"{multiple}×"
    flush = flush_seconds(H200.l2_bytes, H200.hbm_bytes_per_s, multiple)
    out["flush.h200"] = f"{flush * 1e6:.0f} µs"
    return out


if __name__ == "__main__":
    for calls in (1, 10, 1000):
        reads = host_timer_reads(5.0, 50.0, calls)
        print(f"{calls:>5} launches of a 50 µs kernel: {reads}")
    print(f"launch share of a 2 µs kernel: {launch_share(2.0, 5.0):.0%}")
    run = run_facts()
    print(
        f"newest compare run ({run['kind']}, {run['timer']}): "
        f"compile first call {run['first']}, median {run['median']}"
    )
