"""Poisson arrivals against the serving engine, one offered load at a time.

Each load gets a fresh engine and its own seeded arrivals and prompts. Every
request's TTFT and TPOT and every step's size and seconds are kept in the
result, so the simulator can be fitted to, and checked against, this run.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

from evidence import ROOT, sha256_file
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
)

#: profile -> offered loads (requests/s), requests per load, output tokens,
#: prompt length range in characters. "tiny" is the --dry-run smoke test.
PROFILES = {
    "tiny": dict(loads=(20.0,), requests=4, max_new_tokens=4, prompt_chars=(4, 12)),
    "quick": dict(
        loads=(25.0, 50.0, 100.0, 200.0, 300.0, 400.0),
        requests=150,
        max_new_tokens=16,
        prompt_chars=(8, 40),
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


def run_load(engine, rate: float, profile: dict, seed: int) -> dict:
    """Serve one offered load to completion; summary, requests and steps."""
    prompts = make_prompts(profile["requests"], profile["prompt_chars"], seed)
    arrivals = poisson_arrivals(rate, profile["requests"], seed)
    engine.steps = []
    seqs = engine.run(engine.sequences(prompts, profile["max_new_tokens"], arrivals))
    us = 6  # decimals kept: microseconds
    requests = []
    for seq in seqs:
        gaps = [
            b - a
            for a, b in zip(seq.token_times[:-1], seq.token_times[1:], strict=True)
        ]
        requests.append(
            {
                "arrival_s": round(seq.arrival, us),
                "prompt_tokens": len(seq.prompt),
                "output_tokens": len(seq.output),
                "ttft": round(seq.token_times[0] - seq.arrival, us),
                "tpot": round(sum(gaps) / len(gaps), us) if gaps else None,
                "finish_s": round(seq.token_times[-1], us),
                "preemptions": seq.preemptions,
            }
        )
    span = max(r["finish_s"] for r in requests) - min(r["arrival_s"] for r in requests)
    return {
        "offered_rps": rate,
        "seed": seed,
        "span_s": round(span, us),
        "summary": summarize(requests, span),
        # Columns, not rows: one list per field keeps the file small.
        "requests": columns(requests),
        "steps": columns(group_steps(engine.steps, us)),
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


def run(profile_name: str, device: str, seed: int, argv: list[str]) -> dict:
    """Every load of one profile; the whole result, ready to validate."""
    import torch

    from snippets.lib.serving.engine import Engine

    profile = PROFILES[profile_name]
    started = datetime.now(UTC)
    engine = Engine(CHECKPOINT, device=device, **ENGINE)
    engine.generate(["warm up "], 2)  # first-call costs stay out of the data
    loads = [
        run_load(engine, rate, profile, seed + i)
        for i, rate in enumerate(profile["loads"])
    ]
    identity = {
        **git_identity(),
        "started_utc": started.isoformat(timespec="seconds"),
        "finished_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "profile": profile_name,
        "device_kind": "cpu" if device == "cpu" else "cuda",
        "runner_sources": {p: sha256_file(ROOT / p) for p in SOURCES},
        "argv": argv,
        "seed": seed,
    }
    kind = identity["device_kind"]
    return {
        "schema_version": SCHEMA_VERSION,
        "run_status": "complete",
        "evidence": (
            "CPU run: wall times of the tiny model on the CPU named here; "
            "they say nothing about a GPU"
            if kind == "cpu"
            else "GPU run: wall times on the device named here"
        ),
        "identity": identity,
        "software": software_info(),
        "device": device_info(device),
        "settings": {
            **ENGINE,
            "max_new_tokens": profile["max_new_tokens"],
            "prompt_chars": list(profile["prompt_chars"]),
            "requests_per_load": profile["requests"],
            "dtype": "float64",
            "torch_threads": torch.get_num_threads(),
            "checkpoint": CHECKPOINT.relative_to(ROOT).as_posix(),
            "checkpoint_sha256": sha256_file(CHECKPOINT),
        },
        "loads": loads,
    }


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
