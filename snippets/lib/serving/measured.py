"""The committed serving run, read for the pages: tables, texts, the plot,
and the simulator replayed against it (docs/inference/serving-engine.md).

Standard library and matplotlib only (the site build imports this file).
The result files are written by `python -m scripts.serving`.
"""

from datetime import UTC, datetime
from pathlib import Path

from evidence import read
from evidence.method import parse_utc
from evidence.text import inert
from snippets.lib.diagrams import (
    ACCENT,
    FONT_SIZE,
    INK,
    MUTED,
    SECOND,
    figure,
    style_axes,
)
from snippets.lib.serving.simulator import StepTime, fit_step_time, simulate, summarize

ROOT = Path(__file__).resolve().parents[3]
RESULTS = ROOT / "results" / "serving"
#: The simulator's tolerance against the engine, on loads it was not fitted
#: to: each compared latency within this fraction of the measured value, or
#: within FLOOR_S when that is larger. The floor is far below every latency
#: compared (the smallest is a TPOT of about half a millisecond). A p95 of a
#: queue is the least stable of the three, so it gets the widest band; a
#: step time 1.5x too slow must still fail on every judged load.
TOLERANCE = {"ttft_p50_s": 0.2, "ttft_p95_s": 0.4, "tpot_p50_s": 0.2}
FLOOR_S = 0.00005
#: The loads judged: those offered at 50-90% of the probed capacity, where a
#: queue forms and a wrong step time shows, short of the loads whose queue
#: still grows when the last request arrives. Each is predicted by a step
#: time fitted to the run's other loads only.
JUDGED = (0.5, 0.8)
COMPARED = ("ttft_p50_s", "ttft_p95_s", "tpot_p50_s")


def agrees(measured: float, simulated: float, key: str = "ttft_p50_s") -> bool:
    return abs(simulated - measured) <= max(TOLERANCE[key] * measured, FLOOR_S)


def judged_loads(result: dict) -> list[dict]:
    """The loads the simulator is judged on in this run."""
    lo, hi = JUDGED
    return [
        load
        for load in result["loads"]
        if lo <= load.get("fraction_of_capacity", 0) <= hi
    ]


def claimed(result: dict) -> list[float]:
    """The offered loads the tolerance is checked on (for the prose)."""
    return [load["offered_rps"] for load in judged_loads(result)]


def _started(loaded) -> datetime:
    moment = parse_utc(loaded.data["identity"]["started_utc"])
    return moment or datetime.min.replace(tzinfo=UTC)


def newest(device_kind: str = "cpu", profile: str = "quick") -> dict | None:
    """The newest complete result for one device kind and profile, newest by
    its recorded start time (not by file name), read through evidence.read
    so a malformed file fails with one line naming it; None if there is none."""
    paths = sorted(RESULTS.glob("*.json"))
    key = (device_kind, profile, tuple((p, p.stat().st_mtime_ns) for p in paths))
    if key not in _newest:  # one parse per build: the pages ask many times
        _newest[key] = _find_newest(paths, device_kind, profile)
    return _newest[key]


_newest: dict[tuple, dict | None] = {}


def _find_newest(paths, device_kind: str, profile: str) -> dict | None:
    found = []
    for path in paths:
        loaded = read("serving", path)
        ident = loaded.data["identity"]
        if (
            ident["device_kind"] == device_kind
            and ident["profile"] == profile
            and loaded.data["run_status"] == "complete"
        ):
            found.append(loaded)
    if not found:
        return None
    return max(found, key=_started).data


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
def simulate_load(result: dict, load: dict, step_time: StepTime) -> dict:
    """The simulator's summary for one recorded load: the same arrivals,
    prompt and reply lengths and engine settings, a modelled step time."""
    settings = result["settings"]
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
    return summarize(out, span - min(q["arrival"] for q in requests))


def held_out_fit(result: dict, load: dict) -> StepTime:
    """The step time fitted to every load of the run except `load`."""
    others = [x for x in result["loads"] if x is not load]
    return fit_step_time([s for x in others for s in rows(x["steps"])])


_replayed: list[tuple] = []  # (result, scale, rows): the same dict object only


def replay(result: dict, scale: float = 1.0) -> list[dict]:
    """For each judged load: measured against simulated, the simulator
    fitted without that load and its step time multiplied by `scale`
    (1.5 is the deliberately wrong model the test must reject)."""
    for seen, seen_scale, rows_ in _replayed:
        if seen is result and seen_scale == scale:
            return rows_
    out = []
    for load in judged_loads(result):
        fit = held_out_fit(result, load)
        step_time = StepTime(
            fit.fixed * scale, fit.per_seq * scale, fit.per_token * scale
        )
        out.append(
            {
                "offered_rps": load["offered_rps"],
                "fraction": load["fraction_of_capacity"],
                "measured": load["summary"],
                "simulated": simulate_load(result, load, step_time),
            }
        )
    _replayed.append((result, scale, out))
    return out


RERUNS = RESULTS / "reruns"


def reruns() -> list[dict]:
    """Further complete runs of the same code on the same machine, kept to
    show how far the simulator's agreement carries from one run to the next
    (results/serving/reruns/, read through evidence.read like the rest)."""
    found = []
    for path in sorted(RERUNS.glob("*.json")):
        loaded = read("serving", path)
        if loaded.data["run_status"] == "complete":
            found.append(loaded.data)
    return sorted(found, key=lambda r: r["identity"]["started_utc"])


def rerun_text() -> str:
    """What the held-out check gives on each rerun, in words."""
    parts = []
    for r in reruns():
        failed = verdict(r)
        p50_failed = [f for f in failed if f[1] != "ttft_p95_s"]
        wrong = verdict(r, 1.5)
        detail = "; ".join(
            f"{key[:4].upper()} {key[5:8]} at {load:.0f} req/s measured "
            f"{m * 1e3:.1f} ms, simulated {s_ * 1e3:.1f} ms"
            for load, key, m, s_ in failed
        )
        parts.append(
            f"the run of commit `{r['identity']['commit'][:7]}` fails "
            f"{len(failed)} of {len(replay(r)) * len(COMPARED)} comparisons"
            + (f" ({detail})" if detail else "")
            + f", {len(p50_failed)} of them on a p50, and the x1.5 model fails "
            f"{len(wrong)}"
        )
    return "; ".join(parts) if parts else "no rerun is recorded yet"


def errors(result: dict, scale: float = 1.0) -> list[float]:
    """Relative error of every comparison, simulated against measured."""
    return [
        abs(row["simulated"][key] - row["measured"][key]) / row["measured"][key]
        for row in replay(result, scale)
        for key in COMPARED
    ]


def worst_error(result: dict, scale: float = 1.0) -> float:
    return max(errors(result, scale))


def least_error(result: dict, scale: float = 1.0) -> float:
    """Per judged load, its largest error; the smallest of those: how close
    the model came to passing its best load."""
    per_load = len(COMPARED)
    e = errors(result, scale)
    return min(max(e[i : i + per_load]) for i in range(0, len(e), per_load))


def verdict(result: dict, scale: float = 1.0) -> list[tuple]:
    """(load, latency, measured, simulated) for every comparison that fails."""
    return [
        (row["offered_rps"], key, row["measured"][key], row["simulated"][key])
        for row in replay(result, scale)
        for key in COMPARED
        if not agrees(row["measured"][key], row["simulated"][key], key)
    ]


# --8<-- [end:replay]


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1e3:.2f} ms" if seconds < 0.1 else f"{seconds * 1e3:.0f} ms"


def footnote(result: dict) -> str:
    ident = result["identity"]
    return (
        f"*{inert(device_label(result))}, measured; clock: "
        f"{inert(result['settings'].get('clock', 'wall time'))}; "
        f"commit <code>{inert(ident['commit'][:7])}</code>, "
        f"{inert(ident['started_utc'][:10])}, torch "
        f"{inert(result['software']['torch'])}, "
        f"{result['settings']['torch_threads']} "
        "thread(s).*"
    )


def load_table() -> str:
    """The committed CPU run as a Markdown table, one row per offered load."""
    result = newest()
    if result is None:
        return "*Not measured yet: run `python -m scripts.serving`.*"
    lines = [
        "| offered (req/s) | arrived (req/s) | queue at last arrival | TTFT p50 "
        "| TTFT p95 | TPOT p50 | ITL p95 | E2E p95 | goodput (req/s) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for load in result["loads"]:
        s = load["summary"]
        queue = f"{s['queue_after_last_arrival']}"
        if s["saturated"]:
            queue += " (saturated)"
        lines.append(
            f"| {load['offered_rps']:.0f} ({load['fraction_of_capacity']:.0%}) "
            f"| {s['realised_rps']:.0f} | {queue} | {_ms(s['ttft_p50_s'])} "
            f"| {_ms(s['ttft_p95_s'])} | {_ms(s['tpot_p50_s'])} "
            f"| {_ms(s['itl_p95_s'])} | {_ms(s['e2e_p95_s'])} "
            f"| {s['goodput_rps']:.0f} ({s['slo_attainment']:.0%}) |"
        )
    lines += ["", footnote(result)]
    return "\n".join(lines)


def step_model_text() -> str:
    """The step time fitted to the committed CPU run, in words."""
    result = newest()
    if result is None:
        return "(not measured yet)"
    steps = all_steps(result)
    t = fit_step_time(steps)
    return (
        f"{t.fixed * 1e3:.3f} ms per step, plus {t.per_seq * 1e3:.3f} ms per "
        f"sequence, plus {t.per_token * 1e6:.1f} µs per token fed "
        f"(fitted to {sum(s['count'] for s in steps)} steps, "
        f"{inert(device_label(result))})"
    )


def replay_table() -> str:
    """Measured against simulated, each judged load predicted by a fit to
    the other loads; and the deliberately wrong model (step time x1.5)."""
    result = newest()
    if result is None:
        return "*Not measured yet.*"
    lines = [
        "| offered (req/s) | latency | measured | simulated (held out) "
        "| within tolerance | step time x1.5 | within tolerance |",
        "| ---: | --- | ---: | ---: | :---: | ---: | :---: |",
    ]
    wrong = {row["offered_rps"]: row for row in replay(result, 1.5)}
    for row in replay(result):
        bad = wrong[row["offered_rps"]]
        for key in COMPARED:
            m, s, w = row["measured"][key], row["simulated"][key], bad["simulated"][key]
            lines.append(
                f"| {row['offered_rps']:.0f} ({row['fraction']:.0%}) "
                f"| {key[:4].upper()} {key[5:8]} | {_ms(m)} | {_ms(s)} "
                f"| {'yes' if agrees(m, s, key) else '**no**'} | {_ms(w)} "
                f"| {'yes' if agrees(m, w, key) else '**no**'} |"
            )
    return "\n".join(lines)


def rank_from_top(q: float, n: int) -> int:
    """The nearest-rank q-th percentile of n values is the k-th slowest."""
    return n - int(-(-q * n // 100)) + 1


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def _pct(x: float) -> str:
    return f"{x:.0%}"


def mechanism_table(which: str) -> str:
    """The committed run's with/without comparison for one mechanism."""
    result = newest()
    if result is None or "mechanisms" not in result:
        return "*Not measured yet: run `python -m scripts.serving`.*"
    m = result["mechanisms"][which]
    if which in ("chunked_prefill", "prefix_caching"):
        label = (
            f"token budget {m['token_budget']}"
            if which == "chunked_prefill"
            else "prefix cache"
        )
        lines = [
            "| engine | TTFT p50 | TTFT p95 | ITL p50 | ITL p95 | ITL p99 "
            "| prefix hit rate |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for name, title in (("without", "without"), ("with", f"with {label}")):
            s = m[name]
            lines.append(
                f"| {title} | {_ms(s['ttft_p50_s'])} | {_ms(s['ttft_p95_s'])} "
                f"| {_ms(s['itl_p50_s'])} | {_ms(s['itl_p95_s'])} "
                f"| {_ms(s['itl_p99_s'])} | {_pct(s['prefix_hit_rate'])} |"
            )
    elif which == "watermark":
        lines = [
            "| admission | preemptions | recomputed tokens | prompt tokens "
            "| CPU time |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for name, title in (
            ("without", "no watermark"),
            ("with", f"watermark {m['fraction']:.0%} of the pool"),
        ):
            s = m[name]
            lines.append(
                f"| {title} | {s['preemptions']} | {s['recomputed_tokens']:,} "
                f"| {s['prompt_tokens']:,} | {_ms(s['seconds'])} |"
            )
    elif which == "speculative":
        lines = [
            "| decoding | steps | output tokens | tokens per step (batch) | acceptance "
            "| CPU time |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for name, title in (
            ("without", "one token per step"),
            ("with", f"n-gram draft of {m['draft_tokens']}"),
        ):
            s = m[name]
            rate = _pct(s["accepted"] / s["proposed"]) if s["proposed"] else "-"
            lines.append(
                f"| {title} | {s['steps']:,} | {s['output_tokens']:,} "
                f"| {s['output_tokens'] / s['steps']:.2f} | {rate} "
                f"| {_ms(s['seconds'])} |"
            )
    else:
        raise ValueError(f"which must name a mechanism, got {which!r}")
    return "\n".join([*lines, "", footnote(result)])


def facts() -> dict[str, str]:
    """Every value the pages state about the committed run, by name."""
    result = newest()
    if result is None:
        return {}
    s = result["settings"]
    loads = result["loads"]
    judged = claimed(result)
    out = {
        "device": inert(device_label(result)),
        "requests": str(s["requests_per_load"]),
        "new_tokens": str(s["max_new_tokens"]),
        "engine": f"max_batch={s['max_batch']}, block_size={s['block_size']}, "
        f"num_blocks={s['num_blocks']}",
        "probe_rps": f"{s['capacity_probe_rps']:.0f} requests/s",
        "fractions": ", ".join(f"{f:.0%}" for f in s["load_fractions"]),
        "clock": inert(s.get("clock", "wall time")),
        "slo": f"TTFT at most {s['slo']['ttft_s'] * 1e3:g} ms and TPOT at most "
        f"{s['slo']['tpot_s'] * 1e3:g} ms",
        "p95_rank": ordinal(rank_from_top(95, s["requests_per_load"])),
        "p99_rank": ordinal(rank_from_top(99, s["requests_per_load"])),
        "peak_tokens": "{:.0f}".format(
            max(x["summary"]["output_tokens_per_s"] for x in loads)
        ),
        "step_model": step_model_text(),
        "tolerance": ", ".join(
            f"{key[:4].upper()} {key[5:8]} {tol:.0%}" for key, tol in TOLERANCE.items()
        )
        + f" (or {FLOOR_S * 1e6:g} µs, whichever is larger)",
        "judged": ", ".join(f"{x:.0f}" for x in judged) + " req/s",
        "judged_band": f"{JUDGED[0]:.0%} to {JUDGED[1]:.0%}",
        "fitted_failures": str(len(verdict(result))),
        "reruns": rerun_text(),
        "fitted_worst": _pct(worst_error(result, 1.0)),
        "wrong_least": _pct(least_error(result, 1.5)),
        "wrong_failures": str(len(verdict(result, 1.5))),
        "comparisons": str(len(judged) * len(COMPARED)),
        "saturated": ", ".join(
            f"{x['offered_rps']:.0f}" for x in loads if x["summary"]["saturated"]
        )
        or "none",
    }
    mech = result.get("mechanisms")
    if mech:
        c, p = mech["chunked_prefill"], mech["prefix_caching"]
        w, sp = mech["watermark"], mech["speculative"]
        out.update(
            {
                "chunk_budget": str(c["token_budget"]),
                "itl_p99_without": _ms(c["without"]["itl_p99_s"]),
                "itl_p99_with": _ms(c["with"]["itl_p99_s"]),
                "chunk_ttft_p50_without": _ms(c["without"]["ttft_p50_s"]),
                "chunk_ttft_p50_with": _ms(c["with"]["ttft_p50_s"]),
                "prefix_tokens": str(p["shared_prefix_tokens"]),
                "prefix_hit_rate": _pct(p["with"]["prefix_hit_rate"]),
                "prefix_ttft_p50_without": _ms(p["without"]["ttft_p50_s"]),
                "prefix_ttft_p50_with": _ms(p["with"]["ttft_p50_s"]),
                "watermark_preemptions_without": str(w["without"]["preemptions"]),
                "watermark_preemptions_with": str(w["with"]["preemptions"]),
                "spec_acceptance": _pct(sp["with"]["accepted"] / sp["with"]["proposed"])
                if sp["with"]["proposed"]
                else "0%",
                "spec_tokens_per_step": "{:.2f}".format(
                    sp["with"]["output_tokens"] / sp["with"]["steps"]
                ),
                "spec_time_ratio": "{:.2f}".format(
                    sp["with"]["seconds"] / sp["without"]["seconds"]
                ),
            }
        )
    return out


# --8<-- [start:plot]
def load_curve(source: str = "measured"):
    """TTFT and TPOT (p50 solid, p95 dashed) against offered load, one
    point per load, from the committed CPU run; saturated loads hollow."""
    from matplotlib.ticker import FormatStrFormatter, NullFormatter

    fig = figure(6.5, 3.2)
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    result = newest()
    if result is None:
        left.text(0.5, 0.5, "not measured yet", ha="center", color=INK)
        return fig
    loads = result["loads"]
    x = [load["offered_rps"] for load in loads]
    for ax, metric, title in (
        (left, "ttft", "time to first token"),
        (right, "tpot", "time per output token"),
    ):
        for q, style, colour in (("p50", "-", ACCENT), ("p95", "--", SECOND)):
            y = [load["summary"][f"{metric}_{q}_s"] * 1e3 for load in loads]
            ax.plot(x, y, style, marker="o", color=colour, label=q)
        for load in loads:
            if load["summary"]["saturated"]:
                ax.axvline(
                    load["offered_rps"], color=MUTED, linewidth=0.6, linestyle=":"
                )
        ax.set_title(title)
        ax.set_xlabel("offered load (requests / s)")
        ax.set_ylabel("ms")
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        style_axes(ax, grid=True)
        ax.legend(frameon=False, labelcolor=INK, fontsize=FONT_SIZE)
    fig.text(
        0.5,
        0.01,
        f"{device_label(result)}, measured; dotted: saturated (queue still growing)",
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
