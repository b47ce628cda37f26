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
from snippets.lib.serving.simulator import fit_step_time, percentile, simulate

ROOT = Path(__file__).resolve().parents[3]
RESULTS = ROOT / "results" / "serving"
#: What the simulator is judged on, and at which shares of the probed
#: capacity: the latencies at 50-80%, where a queue forms and a wrong step
#: time shows, short of the loads whose queue still grows when the last
#: request arrives; the prefill premium at 30-50%, where a TTFT is mostly
#: the request's own prefill, so that the price of a prompt token shows.
JUDGED = {
    "ttft_p50_s": (0.5, 0.8),
    "ttft_p95_s": (0.5, 0.8),
    "tpot_p50_s": (0.5, 0.8),
    "prefill_premium": (0.3, 0.5),
}
COMPARED = tuple(JUDGED)
#: Each band is the quantity's noise floor, the worst error of a replay that
#: uses every judged load's own mean step times (no model can do better),
#: plus this margin; and never tighter than FLOOR_S for a latency.
MARGIN = 0.10
FLOOR_S = 0.00005


def judged(fraction: float, key: str) -> bool:
    lo, hi = JUDGED[key]
    return lo <= fraction <= hi


def judged_loads(result: dict) -> list[dict]:
    """The loads the simulator is judged on in this run, for any quantity."""
    return [
        load
        for load in result["loads"]
        if any(judged(load.get("fraction_of_capacity", 0), k) for k in COMPARED)
    ]


def claimed(result: dict) -> list[float]:
    """The offered loads the check uses (for the prose)."""
    return [load["offered_rps"] for load in judged_loads(result)]


def judged_fractions(result: dict) -> list[float]:
    """The shares of capacity judged, in order."""
    return sorted({load["fraction_of_capacity"] for load in judged_loads(result)})


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


RERUNS = RESULTS / "reruns"


def reruns() -> list[dict]:
    """Further complete runs of the same code on the same machine
    (results/serving/reruns/, read through evidence.read like the rest),
    oldest first: the check pools them with the newest run."""
    paths = sorted(RERUNS.glob("*.json"))
    key = tuple((p, p.stat().st_mtime_ns) for p in paths)
    if key not in _reruns:
        found = [read("serving", path).data for path in paths]
        found = [r for r in found if r["run_status"] == "complete"]
        _reruns[key] = sorted(found, key=lambda r: r["identity"]["started_utc"])
    return _reruns[key]


_reruns: dict[tuple, list[dict]] = {}


def runs() -> list[dict]:
    """The newest run and every rerun of the same sources: what the
    simulator is judged on, pooled."""
    first = newest()
    if first is None:
        return []
    same = first["identity"]["runner_sources"]
    return [first] + [r for r in reruns() if r["identity"]["runner_sources"] == same]


# --8<-- [start:replay]
#: A load's long prompts start at this many tokens (loadgen: one in four).
LONG_PROMPT = 40


def latency_summary(requests: list[dict]) -> dict:
    """What the check compares, from per-request records (ttft, tpot,
    prompt_tokens): TTFT p50 and p95, TPOT p50, and the prefill premium,
    the median TTFT of long prompts over that of short ones, which only a
    model that prices prompt tokens can get right."""
    ttft = [r["ttft"] for r in requests]
    tpot = [r["tpot"] for r in requests if r["tpot"] is not None]
    long_ = [r["ttft"] for r in requests if r["prompt_tokens"] >= LONG_PROMPT]
    short = [r["ttft"] for r in requests if r["prompt_tokens"] < LONG_PROMPT]
    return {
        "ttft_p50_s": percentile(ttft, 50),
        "ttft_p95_s": percentile(ttft, 95),
        "tpot_p50_s": percentile(tpot, 50),
        "prefill_premium": percentile(long_, 50) / percentile(short, 50),
    }


def level(load: dict, model) -> float:
    """The load's own steps' mean time over what `model(seqs, prefill,
    decode)` predicts for them: how fast the CPU ran during this load."""
    steps = rows(load["steps"])
    spent = sum(s["count"] * s["seconds"] for s in steps)
    predicted = sum(
        s["count"] * model(s["seqs"], s["prefill_tokens"], s["decode_tokens"])
        for s in steps
    )
    return spent / predicted


def step_cost(result: dict, load: dict, model="fitted", scale=1.0):
    """A step's seconds from (sequences, prefill tokens, decode tokens):
    how step time depends on a step's size, fitted to the run's loads other
    than `load`; its level set by `load`'s own mean step time (level()),
    times `scale`. model: "fitted", every fed token priced alike (the
    engine's model); "prefill-blind", a known-wrong model refitted with
    prefill tokens priced at zero; "own-steps", the load's own mean time
    for each step size it ran (the noise floor: no model can do better)."""
    others = [s for x in result["loads"] if x is not load for s in rows(x["steps"])]
    fit = fit_step_time(others)
    if model == "own-steps":
        own = {
            (s["seqs"], s["prefill_tokens"], s["decode_tokens"]): s["seconds"]
            for s in rows(load["steps"])
        }
        return lambda n, p, d: scale * own.get((n, p, d), fit(n, p + d))
    if model == "fitted":
        shape = lambda n, p, d: fit(n, p + d)  # noqa: E731
    elif model == "prefill-blind":
        blind = fit_step_time([{**s, "prefill_tokens": 0} for s in others])
        shape = lambda n, p, d: blind(n, d)  # noqa: E731
    else:
        raise ValueError(
            f"model must be fitted, prefill-blind or own-steps, got {model!r}"
        )
    k = scale * level(load, shape)
    return lambda n, p, d: k * shape(n, p, d)


def simulated_requests(result: dict, load: dict, cost) -> list[dict]:
    """The simulator's per-request latencies for one recorded load: the
    same arrivals, prompt and reply lengths and engine settings."""
    settings, r = result["settings"], load["requests"]
    requests = [
        {"arrival": a, "prompt_tokens": p, "output_tokens": o}
        for a, p, o in zip(
            r["arrival_s"], r["prompt_tokens"], r["output_tokens"], strict=True
        )
    ]
    out = simulate(
        requests,
        None,
        max_batch=settings["max_batch"],
        block_size=settings["block_size"],
        num_blocks=settings["num_blocks"],
        step_cost=cost,
    )
    return [
        {**m, "prompt_tokens": q["prompt_tokens"]}
        for q, m in zip(requests, out, strict=True)
    ]


_replayed: dict[tuple, list[dict]] = {}


def replay(scale: float = 1.0, model: str = "fitted", runs_=None) -> list[dict]:
    """For each judged share of capacity: the engine's requests of every
    run pooled, against the simulator's for the same loads, each load
    predicted by a model fitted to its own run's other loads."""
    if runs_ is None and (kept := stored(scale, model)) is not None:
        return kept  # the build reads results/serving/check/
    runs_ = runs() if runs_ is None else runs_
    key = (tuple(id(r) for r in runs_), scale, model)
    if key not in _replayed:
        out = []
        for fraction in judged_fractions(runs_[0]):
            engine, simulated = [], []
            for result in runs_:
                for load in result["loads"]:
                    if load["fraction_of_capacity"] == fraction:
                        engine += rows(load["requests"])
                        cost = step_cost(result, load, model, scale)
                        simulated += simulated_requests(result, load, cost)
            out.append(
                {
                    "fraction": fraction,
                    "requests": len(engine),
                    "measured": latency_summary(engine),
                    "simulated": latency_summary(simulated),
                }
            )
        _replayed[key] = out
    return _replayed[key]


def errors(scale: float = 1.0, model: str = "fitted", runs_=None) -> dict:
    """Relative error of every judged comparison, by quantity."""
    return {
        key: [
            abs(row["simulated"][key] / row["measured"][key] - 1)
            for row in replay(scale, model, runs_)
            if judged(row["fraction"], key)
        ]
        for key in COMPARED
    }


def tolerance(key: str, runs_=None) -> float:
    """The band of one quantity: its noise floor plus MARGIN."""
    return max(errors(1.0, "own-steps", runs_)[key]) + MARGIN


def agrees(measured: float, simulated: float, band: float, key: str) -> bool:
    floor = FLOOR_S if key.endswith("_s") else 0.0
    return abs(simulated - measured) <= max(band * measured, floor)


def verdict(scale=1.0, model="fitted", runs_=None) -> list[tuple]:
    """(share of capacity, quantity, measured, simulated) for every judged
    comparison outside its band."""
    bands = {key: tolerance(key, runs_) for key in COMPARED}
    return [
        (row["fraction"], key, row["measured"][key], row["simulated"][key])
        for row in replay(scale, model, runs_)
        for key in COMPARED
        if judged(row["fraction"], key)
        and not agrees(row["measured"][key], row["simulated"][key], bands[key], key)
    ]


# --8<-- [end:replay]


#: The replays the pages show, computed once from the runs and committed
#: (python -m scripts.serving.check), so a site build simulates none of
#: them; the test recomputes the file and requires it equal.
CHECK = RESULTS / "check" / "replays.json"
STORED = (("fitted", 1.0), ("own-steps", 1.0), ("fitted", 1.5), ("prefill-blind", 1.0))


def run_ids() -> list[str]:
    """What the stored check was computed from: the newest run, by its start
    and commit, and the names of the rerun files (none of them read)."""
    first = newest()
    if first is None:
        return []
    ident = first["identity"]
    return [f"{ident['started_utc']} {ident['commit']}"] + [
        p.name for p in sorted(RERUNS.glob("*.json"))
    ]


def check_record() -> dict:
    """What CHECK holds: the runs it was computed from, each replay, and the
    facts about the runs that would otherwise need all of them read."""
    pooled = runs()
    return {
        "runs": run_ids(),
        "pooled_runs": len(pooled),
        "level_drift": level_drift(pooled),
        "replays": [
            {"model": m, "scale": k, "rows": replay(k, m, pooled)} for m, k in STORED
        ],
    }


def check_data() -> dict:
    """The stored check if it is current, else the same record computed."""
    if CHECK.exists():
        key = (CHECK, CHECK.stat().st_mtime_ns)
        if key not in _check:
            _check[key] = _read_check(CHECK)
        if _check[key]["runs"] == run_ids():
            return _check[key]
    return check_record()


def stored(scale: float, model: str):
    """A replay from CHECK if it is current and holds it, else None."""
    if not CHECK.exists():
        return None
    key = (CHECK, CHECK.stat().st_mtime_ns)
    if key not in _check:
        _check[key] = _read_check(CHECK)
    data = _check[key]
    if data["runs"] != run_ids():
        return None
    for entry in data["replays"]:
        if entry["model"] == model and entry["scale"] == scale:
            return entry["rows"]
    return None


_check: dict[tuple, dict] = {}


def _read_check(path: Path) -> dict:
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(data["runs"], list) and isinstance(data["replays"], list)
        assert isinstance(data["pooled_runs"], int)
        assert isinstance(data["level_drift"], float)
        for entry in data["replays"]:
            assert {"model", "scale", "rows"} <= set(entry)
            for row in entry["rows"]:
                assert {"fraction", "requests", "measured", "simulated"} <= set(row)
    except (OSError, ValueError, KeyError, TypeError, AssertionError) as err:
        raise ValueError(f"{path.name}: not a serving check file ({err!r})") from None
    return data


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
            f"| {s['goodput_rps']:.0f} ({s['slo_attainment']:.1%}) |"
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


def _value(key: str, x: float) -> str:
    return f"{x:.2f}" if key == "prefill_premium" else _ms(x)


def _label(key: str) -> str:
    if key == "prefill_premium":
        return "prefill premium"
    return f"{key[:4].upper()} {key[5:8]}"


def replay_table() -> str:
    """Measured against simulated, every run pooled, for each judged
    comparison: the fitted model, the noise floor, and two known-wrong
    models (step time x1.5, prefill tokens priced at zero)."""
    if newest() is None:
        return "*Not measured yet.*"
    models = (
        ("fitted", 1.0),
        ("own-steps", 1.0),
        ("fitted", 1.5),
        ("prefill-blind", 1.0),
    )
    lines = [
        "| share of capacity | quantity | measured | band | simulated "
        "| own step times | step time x1.5 | prefill priced at zero |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    replays = [replay(scale, model) for model, scale in models]
    for i, row in enumerate(replays[0]):
        for key in COMPARED:
            if not judged(row["fraction"], key):
                continue
            m, band = row["measured"][key], tolerance(key)
            cells = []
            for rep in replays:
                x = rep[i]["simulated"][key]
                mark = "" if agrees(m, x, band, key) else " **no**"
                cells.append(_value(key, x) + mark)
            lines.append(
                f"| {row['fraction']:.0%} | {_label(key)} | {_value(key, m)} "
                f"| ±{band:.0%} | " + " | ".join(cells) + " |"
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


def facts() -> dict[str, str]:
    """Every value the pages state about the committed run, by name."""
    result = newest()
    if result is None:
        return {}
    s = result["settings"]
    loads = result["loads"]
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
        "saturated": ", ".join(
            f"{x['offered_rps']:.0f}" for x in loads if x["summary"]["saturated"]
        )
        or "none",
        "interpolation_gap": _pct(interpolation_gap(result)),
    }
    return out | check_facts()


def check_facts() -> dict[str, str]:
    """What the pages state about the simulator check, all runs pooled."""
    data = check_data()
    fitted, wrong = verdict(), verdict(1.5)
    blind = verdict(1.0, "prefill-blind")
    count = sum(1 for row in replay() for k in COMPARED if judged(row["fraction"], k))
    lo, hi = PASSING_SCALES
    return {
        "tolerance": ", ".join(
            f"{_label(key)} ±{tolerance(key):.0%}" for key in COMPARED
        ),
        "noise_floor": ", ".join(
            f"{_label(key)} {max(errors(1.0, 'own-steps')[key]):.0%}"
            for key in COMPARED
        ),
        "margin": f"{MARGIN * 100:.0f} percentage points",
        "floor_us": f"{FLOOR_S * 1e6:g} µs",
        "judged_band": "{:.0%} to {:.0%}".format(*JUDGED["ttft_p50_s"]),
        "premium_band": "{:.0%} to {:.0%}".format(*JUDGED["prefill_premium"]),
        "long_prompt": str(LONG_PROMPT),
        "runs": str(data["pooled_runs"]),
        "pooled_requests": f"{replay()[0]['requests']:,}",
        "comparisons": str(count),
        "fitted_failures": str(len(fitted)),
        "fitted_worst": _pct(max(max(v) for v in errors().values())),
        "wrong_failures": str(len(wrong)),
        "blind_failures": str(len(blind)),
        "blind_premium": ", ".join(
            f"{s_:.2f} against {m:.2f}"
            for _, k, m, s_ in blind
            if k == "prefill_premium"
        ),
        "level_drift": _pct(data["level_drift"]),
        "passing_scales": (
            f"{lo:.2f} to {hi:.2f}"
            if lo < hi
            else f"{lo:.2f} alone ({lo - SCALE_STEP:.2f} and {hi + SCALE_STEP:.2f} "
            "each fail)"
        ),
        "scale_step": f"{SCALE_STEP:.2f}",
    }


#: The scale factors on the fitted step time that pass every judged
#: comparison, in steps of SCALE_STEP (the test checks both edges pass and
#: that one step beyond each fails).
PASSING_SCALES = (1.0, 1.0)
SCALE_STEP = 0.02


def level_drift(runs_=None) -> float:
    """How far the CPU's speed wandered between the loads of one run: the
    largest gap between a judged load's own mean step time and what the
    fit to its run's other loads predicts for the same steps."""
    out = 0.0
    for result in runs() if runs_ is None else runs_:
        for load in judged_loads(result):
            others = [
                s for x in result["loads"] if x is not load for s in rows(x["steps"])
            ]
            fit = fit_step_time(others)
            ratio = level(load, lambda n, p, d, f=fit: f(n, p + d))
            out = max(out, abs(ratio - 1))
    return out


def linear_percentile(values: list[float], q: float) -> float:
    """numpy's default percentile (linear between the closest ranks), the
    estimator vLLM's benchmark reports."""
    ordered = sorted(values)
    at = (len(ordered) - 1) * q / 100
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def interpolation_gap(result: dict) -> float:
    """The largest relative gap, over the load table's TTFT, TPOT and ITL
    percentiles, between nearest rank (the tables) and linear interpolation."""
    gap = 0.0
    for load in result["loads"]:
        r = load["requests"]
        series = (
            r["ttft"],
            [t for t in r["tpot"] if t is not None],
            [g for gaps in r["itl"] for g in gaps],
        )
        for values in series:
            for q in (50, 95, 99):
                near = percentile(values, q)
                gap = max(gap, abs(linear_percentile(values, q) - near) / near)
    return gap


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
