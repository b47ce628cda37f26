"""The committed serving run, read for the pages: tables, texts, the plot,
and the simulator replayed against it (docs/inference/serving-engine.md).

Standard library and matplotlib only (the site build imports this file).
The result files are written by `python -m scripts.serving`.
"""

import json
from pathlib import Path

from snippets.lib.diagrams import (
    ACCENT,
    FONT_SIZE,
    INK,
    MUTED,
    SECOND,
    figure,
    style_axes,
)
from snippets.lib.serving.simulator import fit_step_time, simulate, summarize

ROOT = Path(__file__).resolve().parents[3]
RESULTS = ROOT / "results" / "serving"
#: The simulator's stated tolerance against the engine on recorded data:
#: p50 TTFT and p50 TPOT within this fraction of the measured value, or
#: within FLOOR_S seconds when that is larger (sleep wake-ups and cold first
#: steps after idle cost the engine a fraction of a millisecond the model
#: does not see).
TOLERANCE = 0.25
FLOOR_S = 0.001
#: The tolerance is claimed below saturation only: for offered loads up to
#: this fraction of the highest throughput the run achieved. Nearer
#: saturation a queue forms, and a small error in the fitted step time moves
#: the waiting time by far more than 25% (two runs of the same engine on the
#: same machine differ there by as much).
CLAIMED_UP_TO = 0.5


def agrees(measured: float, simulated: float) -> bool:
    return abs(simulated - measured) <= max(TOLERANCE * measured, FLOOR_S)


def claimed(result: dict) -> list[float]:
    """The offered loads the stated tolerance covers in this run."""
    capacity = max(load["summary"]["requests_per_s"] for load in result["loads"])
    return [
        load["offered_rps"]
        for load in result["loads"]
        if load["offered_rps"] <= CLAIMED_UP_TO * capacity
    ]


def newest(device_kind: str = "cpu", profile: str = "quick") -> dict | None:
    """The newest result for one device kind and profile, or None."""
    names = sorted(RESULTS.glob(f"*-{device_kind}-{profile}-*.json"))
    return json.loads(names[-1].read_text("utf-8")) if names else None


def device_label(result: dict) -> str:
    kind = result["device"]["kind"]
    name = result["device"]["name"]
    return f"{name} (CPU)" if kind == "cpu" else name


def rows(table: dict[str, list]) -> list[dict]:
    """{a: [1, 3], b: [2, 4]} -> [{a: 1, b: 2}, {a: 3, b: 4}]."""
    keys = list(table)
    return [
        dict(zip(keys, values, strict=True))
        for values in zip(*table.values(), strict=True)
    ]


def all_steps(result: dict) -> list[dict]:
    """Every measured step of every load, as dicts."""
    return [s for load in result["loads"] for s in rows(load["steps"])]


# --8<-- [start:replay]
def replay(result: dict) -> list[dict]:
    """For each load: the measured p50s and the simulator's, the simulator
    fitted to the steps of the same run and fed the same arrivals."""
    settings = result["settings"]
    step_time = fit_step_time(all_steps(result))
    rows = []
    for load in result["loads"]:
        r = load["requests"]
        requests = [
            {"arrival": a, "prompt_tokens": p, "output_tokens": o}
            for a, p, o in zip(
                r["arrival_s"], r["prompt_tokens"], r["output_tokens"], strict=True
            )
        ]
        out = simulate(
            requests,
            step_time,
            max_batch=settings["max_batch"],
            block_size=settings["block_size"],
            num_blocks=settings["num_blocks"],
        )
        span = max(q["arrival"] + m["e2e"] for q, m in zip(requests, out, strict=True))
        sim = summarize(out, span - min(q["arrival"] for q in requests))
        rows.append(
            {
                "offered_rps": load["offered_rps"],
                "measured": load["summary"],
                "simulated": sim,
            }
        )
    return rows


# --8<-- [end:replay]


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 0.1 else f"{seconds * 1e3:.0f} ms"


def load_table() -> str:
    """The committed CPU run as a Markdown table, one row per offered load."""
    result = newest()
    if result is None:
        return "*Not measured yet: run `python -m scripts.serving`.*"
    lines = [
        "| offered (req/s) | achieved (req/s) | output tok/s | TTFT p50 | TTFT p99 "
        "| TPOT p50 | TPOT p99 |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for load in result["loads"]:
        s = load["summary"]
        lines.append(
            f"| {load['offered_rps']:g} | {s['requests_per_s']:.1f} "
            f"| {s['output_tokens_per_s']:.0f} | {_ms(s['ttft_p50_s'])} "
            f"| {_ms(s['ttft_p99_s'])} | {_ms(s['tpot_p50_s'])} "
            f"| {_ms(s['tpot_p99_s'])} |"
        )
    ident = result["identity"]
    lines.append("")
    lines.append(
        f"*{device_label(result)}, measured; commit `{ident['commit'][:7]}`, "
        f"{ident['started_utc'][:10]}, torch {result['software']['torch']}, "
        f"{result['settings']['torch_threads']} thread(s).*"
    )
    return "\n".join(lines)


def run_facts(what: str) -> str:
    """One fact about the committed run's settings, for the prose."""
    result = newest()
    if result is None:
        return "(not measured yet)"
    s = result["settings"]
    facts = {
        "device": device_label(result),
        "requests": str(s["requests_per_load"]),
        "new_tokens": str(s["max_new_tokens"]),
        "engine": f"max_batch={s['max_batch']}, block_size={s['block_size']}, "
        f"num_blocks={s['num_blocks']}",
        "loads": ", ".join(f"{x['offered_rps']:g}" for x in result["loads"]),
        "peak_tokens": "{:.0f}".format(
            max(x["summary"]["output_tokens_per_s"] for x in result["loads"])
        ),
    }
    return facts[what]


def step_model_text() -> str:
    """The step time fitted to the committed CPU run, in words."""
    result = newest()
    if result is None:
        return "(not measured yet)"
    steps = all_steps(result)
    t = fit_step_time(steps)
    return (
        f"{t.fixed * 1e3:.2f} ms per step, plus {t.per_seq * 1e3:.2f} ms per "
        f"sequence, plus {t.per_token * 1e6:.0f} µs per token fed "
        f"(fitted to {sum(s['count'] for s in steps)} steps, "
        f"{device_label(result)})"
    )


def replay_table() -> str:
    """Measured against simulated p50s, load by load, with the error."""
    result = newest()
    if result is None:
        return "*Not measured yet.*"
    lines = [
        "| offered (req/s) | TTFT p50 measured | simulated | TPOT p50 measured "
        "| simulated |",
        "| ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in replay(result):
        m, s = row["measured"], row["simulated"]
        lines.append(
            f"| {row['offered_rps']:g} | {_ms(m['ttft_p50_s'])} "
            f"| {_ms(s['ttft_p50_s'])} | {_ms(m['tpot_p50_s'])} "
            f"| {_ms(s['tpot_p50_s'])} |"
        )
    return "\n".join(lines)


def tolerance_text() -> str:
    return f"{TOLERANCE:.0%} or {FLOOR_S * 1e3:g} ms, whichever is larger"


def claimed_text() -> str:
    """Which loads of the committed run the tolerance covers, and why."""
    result = newest()
    if result is None:
        return "(not measured yet)"
    loads = ", ".join(f"{x:g}" for x in claimed(result))
    return (
        f"offered loads up to {CLAIMED_UP_TO:.0%} of the highest throughput the "
        f"run achieved ({loads} req/s in this run)"
    )


# --8<-- [start:plot]
def load_curve(source: str = "measured"):
    """TTFT and TPOT (p50 solid, p99 dashed) against achieved throughput,
    one point per offered load, from the committed CPU run."""
    from matplotlib.ticker import FormatStrFormatter, NullFormatter

    fig = figure(6.5, 3.2)
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    result = newest()
    if result is None:
        left.text(0.5, 0.5, "not measured yet", ha="center", color=INK)
        return fig
    loads = result["loads"]
    x = [load["summary"]["output_tokens_per_s"] for load in loads]
    for ax, metric, title in (
        (left, "ttft", "time to first token"),
        (right, "tpot", "time per output token"),
    ):
        for q, style, colour in (("p50", "-", ACCENT), ("p99", "--", SECOND)):
            y = [load["summary"][f"{metric}_{q}_s"] * 1e3 for load in loads]
            ax.plot(x, y, style, marker="o", color=colour, label=q)
        ax.set_title(title)
        ax.set_xlabel("output tokens / s")
        ax.set_ylabel("ms")
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        style_axes(ax, grid=True)
        ax.legend(frameon=False, labelcolor=INK, fontsize=FONT_SIZE)
    fig.text(
        0.5,
        0.01,
        f"{device_label(result)}, measured",
        ha="center",
        color=MUTED,
        fontsize=FONT_SIZE,
    )
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


# --8<-- [end:plot]


if __name__ == "__main__":
    print(load_table())
    print(step_model_text())
    print(replay_table())
