"""Poisson arrivals against the serving engine, one offered load at a time.

The loads are set from the machine's own capacity: a probe first serves a
burst of requests all at once, and the offered loads are fractions of the
throughput it reached, so the loads that matter (50-90% of capacity, where a
queue forms) are measured on any machine. Each load gets a fresh engine and
its own seeded arrivals and prompts. Every request's latencies and every
step's size and seconds are kept, so the simulator can be fitted to one part
of the run and judged on another. The result file is written again after
every load ("partial"), so an interrupted run leaves a finished file.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

from evidence import ROOT, sha256_file, write
from evidence.provenance import device_info, git_identity, software_info
from snippets.lib.serving.simulator import poisson_arrivals, summarize

SCHEMA_VERSION = 1
CORPUS = ROOT / "results" / "tiny_lm" / "corpus.txt"
CHECKPOINT = ROOT / "results" / "tiny_lm" / "checkpoint.pt"
SOURCES = (
    "scripts/serving/__main__.py",
    "scripts/serving/loadgen.py",
    "snippets/lib/serving/blocks.py",
    "snippets/lib/serving/engine.py",
    "snippets/lib/serving/scheduler.py",
    "snippets/lib/serving/simulator.py",
    "snippets/lib/serving/speculative.py",
)

#: The objective goodput counts against, on the CPU engine's scale: a request
#: is good when its TTFT and its TPOT are both within these bounds (vLLM's
#: benchmark counts goodput the same way).
SLO = dict(ttft_s=0.010, tpot_s=0.002)

#: profile -> loads as fractions of the probed capacity, requests per load,
#: output tokens, prompt length range in characters, and the requests each
#: mechanism experiment serves. "tiny" is the --dry-run smoke test.
PROFILES = {
    "tiny": dict(
        fractions=(0.5,),
        requests=4,
        max_new_tokens=4,
        prompt_chars=(4, 12),
        long_prompts=(0, (4, 12)),
        burst_chars=(4, 12),
        probe=4,
        mechanism_requests=0,
    ),
    "quick": dict(
        fractions=(0.3, 0.5, 0.6, 0.7, 0.8, 1.2),
        requests=400,
        max_new_tokens=16,
        prompt_chars=(8, 24),
        # One prompt in four is long, so that a step's cost of feeding a
        # prompt can be told apart from its cost per sequence.
        long_prompts=(4, (40, 48)),
        burst_chars=(8, 40),
        probe=200,
        mechanism_requests=200,
    ),
}
ENGINE = dict(max_batch=8, block_size=16, num_blocks=24)


def make_prompts(count: int, chars: tuple[int, int], seed: int) -> list[str]:
    """Slices of the tiny model's corpus, of random length in `chars`."""
    text = CORPUS.read_text(encoding="utf-8")
    rng = random.Random(seed)
    prompts = []
    for _ in range(count):
        length = rng.randint(*chars)
        start = rng.randrange(len(text) - length)
        prompts.append(text[start : start + length])
    return prompts


def load_prompts(count: int, profile: dict, seed: int) -> list[str]:
    """A load's prompts: short ones of `prompt_chars`, and every k-th one
    long, of the second length range in `long_prompts` (k = 0: none)."""
    every, chars = profile["long_prompts"]
    short = make_prompts(count, profile["prompt_chars"], seed)
    return [
        make_prompts(1, chars, seed * 1000 + i)[0] if every and i % every == 0 else p
        for i, p in enumerate(short)
    ]


def check_rate(rate) -> float:
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not rate > 0:
        raise ValueError(f"rate must be a positive number of requests/s, got {rate!r}")
    return float(rate)


def run_load(
    engine, rate: float, prompts: list[str], max_new_tokens: int, seed: int
) -> dict:
    """Serve one offered load to completion; summary, requests and steps."""
    rate = check_rate(rate)
    arrivals = poisson_arrivals(rate, len(prompts), seed)
    return {
        "offered_rps": rate,
        "seed": seed,
        **serve_requests(engine, prompts, max_new_tokens, arrivals),
    }


US = 6  # decimals kept: microseconds


def request_record(seq, drafts: bool) -> dict:
    """What a page may quote about one request, every gap included, so a
    test can recompute each summary from these records alone."""
    times = seq.token_times
    gaps = [b - a for a, b in zip(times[:-1], times[1:], strict=True)]
    record = {
        "arrival_s": round(seq.arrival, US),
        "prompt_tokens": len(seq.prompt),
        "output_tokens": len(seq.output),
        "ttft": round(seq.token_times[0] - seq.arrival, US),
        "tpot": round(sum(gaps) / len(gaps), US) if gaps else None,
        "finish_s": round(seq.token_times[-1], US),
        "preemptions": seq.preemptions,
        "recomputed_tokens": seq.recomputed,
        "prefix_hit_tokens": seq.prefix_hit_tokens,
        "itl": [round(g, US) for g in gaps],
    }
    if drafts:  # per decode step: draft tokens proposed, and accepted
        record["draft_proposed"] = [p for p, _ in seq.verified]
        record["draft_accepted"] = [a for _, a in seq.verified]
    return record


def serve_requests(engine, prompts, max_new_tokens, arrivals=None) -> dict:
    """Serve `prompts` arriving at `arrivals` (None: all at once) to
    completion: the summary, one record per request and the steps."""
    engine.steps = []
    queue: list[tuple] = []
    seqs = engine.run(
        engine.sequences(prompts, max_new_tokens, arrivals),
        clock=engine.clock,
        on_step=lambda t, waiting, pending: queue.append((t, waiting, pending)),
    )
    drafts = engine.options["draft"] is not None
    requests = [request_record(seq, drafts) for seq in seqs]
    span = max(r["finish_s"] for r in requests) - min(r["arrival_s"] for r in requests)
    summary = summarize(
        [{**r, "e2e": r["finish_s"] - r["arrival_s"]} for r in requests],
        span,
        slo=SLO,
    )
    last_arrival = max(r["arrival_s"] for r in requests)
    waiting_at_last = max(
        (w for t, w, pending in queue if pending == 0), default=0
    )  # the queue once every request has arrived: its largest value
    sched = engine.scheduler
    summary.update(
        {
            "realised_rps": len(requests) / last_arrival if last_arrival else 0.0,
            "queue_peak": max((w for _, w, _ in queue), default=0),
            "queue_after_last_arrival": waiting_at_last,
            # Saturated: arrivals outran service long enough to leave more
            # than a full batch waiting once the last request was in.
            "saturated": waiting_at_last > engine.max_batch,
            "preemptions": sched.preemptions,
            "recomputed_tokens": sched.recomputed_tokens,
            "prompt_tokens": sched.prompt_tokens,
            "prefix_hit_rate": (
                sched.prefix_hit_tokens / sched.prompt_tokens
                if sched.prompt_tokens
                else 0.0
            ),
            "draft_proposed": sched.proposed,
            "draft_accepted": sched.accepted,
            "steps": len(engine.steps),
            "seconds": round(sum(s["seconds"] for s in engine.steps), US),
        }
    )
    return {
        "span_s": round(span, US),
        "summary": summary,
        # Columns, not rows: one list per field keeps the file small.
        "requests": columns(requests),
        "steps": columns(group_steps(engine.steps, US)),
    }


def group_steps(steps: list[dict], digits: int) -> list[dict]:
    """Steps of the same size merged: their count and mean seconds (a least-
    squares fit of step time needs no more than that)."""
    groups: dict[tuple, list[float]] = {}
    for s in steps:
        key = (s["seqs"], s["prefill_tokens"], s["decode_tokens"])
        groups.setdefault(key, []).append(s["seconds"])
    return [
        {
            "seqs": k[0],
            "prefill_tokens": k[1],
            "decode_tokens": k[2],
            "count": len(v),
            "seconds": round(sum(v) / len(v), digits),
        }
        for k, v in sorted(groups.items())
    ]


def columns(rows: list[dict]) -> dict[str, list]:
    """[{a: 1, b: 2}, {a: 3, b: 4}] -> {a: [1, 3], b: [2, 4]}."""
    return {key: [row[key] for row in rows] for key in rows[0]}


def probe_capacity(engine, prompts, max_new_tokens) -> float:
    """Requests per second when every request arrives at once: the most the
    engine serves with these settings on this machine."""
    engine.steps = []
    seqs = engine.run(engine.sequences(prompts, max_new_tokens), clock=engine.clock)
    return len(seqs) / max(s.token_times[-1] for s in seqs)


#: Seeds of the mechanism runs, added to the run's seed: each mechanism is
#: measured on three workloads, so the pages can show the spread.
MECHANISM_SEEDS = (0, 100, 200)
SYSTEM_PROMPT = "The tiny model reads its weights "


def mechanism_runs(make_engine, profile: dict, rate: float, seed: int) -> dict:
    """Each mechanism with and without, on a workload where it matters, at
    the same offered load, over MECHANISM_SEEDS: what the pages show of
    chunked prefill, prefix caching, the watermark and speculative decoding,
    with every request's record."""
    out = {
        "chunked_prefill": {"token_budget": 16, "runs": []},
        "prefix_caching": {
            "shared_prefix_tokens": len(SYSTEM_PROMPT.encode()),
            "runs": [],
        },
        "watermark": {"fraction": 0.1, "max_new_tokens": 48, "runs": []},
        "speculative": {
            "draft": "ngram",
            "draft_tokens": 4,
            "max_new_tokens": 48,
            "runs": [],
        },
    }
    for offset in MECHANISM_SEEDS:
        for name, run_ in mechanism_seed(make_engine, profile, rate, seed + offset):
            out[name]["runs"].append({"seed": seed + offset, **run_})
    return out


def mechanism_seed(make_engine, profile: dict, rate: float, seed: int):
    """(mechanism, {"without": ..., "with": ...}) for one seed."""
    from snippets.lib.serving.speculative import ngram_draft

    n, new = profile["mechanism_requests"], profile["max_new_tokens"]
    arrivals = poisson_arrivals(rate, n, seed)

    def both(prompts, tokens, options, at=arrivals):
        return {
            "without": serve_requests(make_engine(), prompts, tokens, at),
            "with": serve_requests(make_engine(**options), prompts, tokens, at),
        }

    # Chunked prefill: long prompts among short ones, with and without a
    # token budget; the pooled ITL tail shows the prefill stalls.
    mixed = [
        p if i % 4 else make_prompts(1, (40, 56), seed + i)[0]
        for i, p in enumerate(make_prompts(n, (4, 12), seed))
    ]
    yield "chunked_prefill", both(mixed, new, dict(token_budget=16))
    # Prefix caching: every prompt starts with one 33-token system prompt.
    shared = [SYSTEM_PROMPT + p for p in make_prompts(n, (4, 12), seed + 1)]
    yield "prefix_caching", both(shared, new, dict(prefix_caching=True))
    # The watermark and the draft: every request at once with replies as
    # long as the context allows, so the pool runs dry as the batch grows.
    burst = make_prompts(n // 2, profile["burst_chars"], seed + 2)
    yield "watermark", both(burst, 48, dict(watermark=0.1), at=None)
    draft = dict(draft=ngram_draft, draft_tokens=4)
    yield "speculative", both(burst, 48, draft, at=None)


def run(
    profile_name: str,
    device: str,
    seed: int,
    argv: list[str],
    out_dir: Path,
    report=print,
) -> tuple[dict, Path]:
    """Every load of one profile, the file rewritten after each; returns the
    finished result and its path."""
    import torch

    from snippets.lib.serving.engine import Engine

    profile = PROFILES[profile_name]
    started = datetime.now(UTC)

    # On the CPU with one torch thread the clock is CPU time (see
    # Engine.run): a shared machine's other work does not leak into the run.
    clock = "cpu" if device == "cpu" and torch.get_num_threads() == 1 else None

    def make_engine(**options):
        engine = Engine(CHECKPOINT, device=device, **ENGINE, **options)
        engine.clock = clock
        return engine

    engine = make_engine()
    engine.generate(["warm up "], 2)  # first-call costs stay out of the data
    new = profile["max_new_tokens"]
    probe_prompts = load_prompts(profile["probe"], profile, seed - 1)
    capacity = probe_capacity(engine, probe_prompts, new)
    report(f"probe: {capacity:.1f} req/s with every request at once")
    identity = {
        **git_identity(),
        "started_utc": started.isoformat(timespec="seconds"),
        "profile": profile_name,
        "device_kind": "cpu" if device == "cpu" else "cuda",
        "runner_sources": {p: sha256_file(ROOT / p) for p in SOURCES},
        "argv": argv,
        "seed": seed,
    }
    kind = identity["device_kind"]
    result = {
        "schema_version": SCHEMA_VERSION,
        "run_status": "partial",
        "evidence": (
            f"CPU run: {'CPU' if clock else 'wall'} times of the tiny model on "
            "the CPU named here; they say nothing about a GPU"
            if kind == "cpu"
            else "GPU run: wall times on the device named here"
        ),
        "identity": identity,
        "software": software_info(),
        "device": device_info(device),
        "settings": {
            **ENGINE,
            "max_new_tokens": new,
            "prompt_chars": list(profile["prompt_chars"]),
            "long_prompts": [profile["long_prompts"][0], *profile["long_prompts"][1]],
            "requests_per_load": profile["requests"],
            "dtype": "float64",
            "torch_threads": torch.get_num_threads(),
            "checkpoint": CHECKPOINT.relative_to(ROOT).as_posix(),
            "checkpoint_sha256": sha256_file(CHECKPOINT),
            "capacity_probe_rps": round(capacity, 3),
            "clock": "cpu time of the engine's thread" if clock else "wall time",
            "load_fractions": list(profile["fractions"]),
            "slo": SLO,
        },
        "loads": [],
    }
    path = output_path(result, out_dir)
    for i, fraction in enumerate(profile["fractions"]):
        prompts = load_prompts(profile["requests"], profile, seed + i)
        load = run_load(make_engine(), fraction * capacity, prompts, new, seed + i)
        load["fraction_of_capacity"] = fraction
        result["loads"].append(load)
        write("serving", path, result)  # a finished, partial file after each load
        report(load_line(load))
    if profile["mechanism_requests"]:
        result["mechanisms"] = mechanism_runs(
            make_engine, profile, 0.7 * capacity, seed
        )
    result["run_status"] = "complete"
    result["identity"]["finished_utc"] = datetime.now(UTC).isoformat(timespec="seconds")
    write("serving", path, result)
    return result, path


def load_line(load: dict) -> str:
    s = load["summary"]
    mark = " SATURATED (queue grew)" if s["saturated"] else ""
    return (
        f"{load['offered_rps']:6.1f} req/s offered, {s['realised_rps']:6.1f} "
        f"arrived: TTFT p50/p95 {s['ttft_p50_s'] * 1e3:.2f}/"
        f"{s['ttft_p95_s'] * 1e3:.2f} ms, TPOT p50 {s['tpot_p50_s'] * 1e3:.2f} ms, "
        f"ITL p95 {s['itl_p95_s'] * 1e3:.2f} ms, goodput {s['goodput_rps']:.1f} "
        f"req/s{mark}"
    )


def stem(result: dict) -> str:
    """<stamp>-<device kind>-<profile>-<commit>, as the benchmark files."""
    ident = result["identity"]
    stamp = datetime.fromisoformat(ident["started_utc"]).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{ident['device_kind']}-{ident['profile']}-{ident['commit'][:7]}"


def output_path(result: dict, out_dir: Path) -> Path:
    """A name no other file has (a second run in the same second gets -2)."""
    path = out_dir / f"{stem(result)}.json"
    n = 2
    while path.exists():
        path = out_dir / f"{stem(result)}-{n}.json"
        n += 1
    return path
