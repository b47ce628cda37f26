"""The four mechanism runs of the committed serving run, recomputed from
their per-request records (docs/inference/prefix-caching-and-chunked-prefill.md,
goodput-and-admission.md, speculative-decoding.md).

Standard library only. Each mechanism was served with and without, on the
same requests, for each of three seeds (scripts/serving/loadgen.py,
mechanism_runs). Every figure here is computed from the stored records of
the requests, not from the summaries the run wrote beside them; the test
checks that the two agree. Step counts and CPU time are per run: a run's
steps are not any one request's.
"""

from statistics import median

from snippets.lib.serving import measured
from snippets.lib.serving.simulator import percentile


def requests(side: dict) -> list[dict]:
    """One mechanism run's requests, one dict each."""
    return measured.rows(side["requests"])


def draft_steps(side: dict) -> list[tuple[int, int]]:
    """(draft tokens proposed, accepted) for every decode step of every
    request; empty without a draft."""
    r = side["requests"]
    if "draft_proposed" not in r:
        return []
    return [
        (p, a)
        for ps, accs in zip(r["draft_proposed"], r["draft_accepted"], strict=True)
        for p, a in zip(ps, accs, strict=True)
    ]


# --8<-- [start:acceptance]
def position_acceptance(steps: list[tuple[int, int]], k: int) -> list[float]:
    """For each draft position i: of the steps whose draft reached i (it had
    more than i tokens and the i before were all accepted), the share that
    accepted position i too. Independent acceptance would make these equal."""
    out = []
    for i in range(k):
        reached = sum(1 for p, a in steps if p > i and a >= i)
        kept = sum(1 for _, a in steps if a > i)
        out.append(kept / reached if reached else 0.0)
    return out


def acceptance_length(steps: list[tuple[int, int]]) -> float:
    """vLLM's mean acceptance length: 1 + accepted tokens per draft, over
    the steps that carried a draft (the model's own token counts as one)."""
    drafted = [a for p, a in steps if p > 0]
    return 1 + sum(drafted) / len(drafted) if drafted else 1.0


def tokens_per_decode_step(steps: list[tuple[int, int]]) -> float:
    """Tokens one sequence gets per decode step, drafted or not."""
    return sum(a + 1 for _, a in steps) / len(steps)


# --8<-- [end:acceptance]


def summary(side: dict) -> dict:
    """What the pages show of one run, from its request records."""
    reqs = requests(side)
    gaps = [g for r in reqs for g in r["itl"]]
    ttft = [r["ttft"] for r in reqs]
    steps = draft_steps(side)
    prompt = sum(r["prompt_tokens"] for r in reqs)
    out = {
        "ttft_p50_s": percentile(ttft, 50),
        "ttft_p95_s": percentile(ttft, 95),
        "itl_p50_s": percentile(gaps, 50),
        "itl_p95_s": percentile(gaps, 95),
        "itl_p99_s": percentile(gaps, 99),
        "prefix_hit_rate": sum(r["prefix_hit_tokens"] for r in reqs) / prompt,
        "preemptions": sum(r["preemptions"] for r in reqs),
        "recomputed_tokens": sum(r["recomputed_tokens"] for r in reqs),
        "prompt_tokens": prompt,
        "output_tokens": sum(r["output_tokens"] for r in reqs),
        "steps": side["summary"]["steps"],  # per run, not per request
        "seconds": side["summary"]["seconds"],
    }
    if steps:
        out["proposed"] = sum(p for p, _ in steps)
        out["accepted"] = sum(a for _, a in steps)
        out["acceptance_length"] = acceptance_length(steps)
        out["tokens_per_decode_step"] = tokens_per_decode_step(steps)
    return out


def mechanism(which: str) -> dict:
    result = measured.newest()
    if result is None or "mechanisms" not in result:
        raise LookupError("no committed run with mechanism runs")
    if which not in result["mechanisms"]:
        raise ValueError(f"which must name a mechanism, got {which!r}")
    return result["mechanisms"][which]


def values(which: str, side: str, key: str) -> list[float]:
    """One figure of one side, for every seed."""
    return [summary(run[side])[key] for run in mechanism(which)["runs"]]


def spread(which: str, side: str, key: str, fmt) -> str:
    """The median over seeds, and the range: '2.64 ms (2.51–2.80)'."""
    v = values(which, side, key)
    lo, hi = (fmt(x).removesuffix(" ms").removesuffix("%") for x in (min(v), max(v)))
    return f"{fmt(median(v))} ({lo}–{hi})"


def _ms(x: float) -> str:
    return f"{x * 1e3:.2f} ms" if x < 0.1 else f"{x * 1e3:.0f} ms"


def _pct(x: float) -> str:
    return f"{x:.0%}"


def _int(x: float) -> str:
    return f"{x:,.0f}"


def _two(x: float) -> str:
    return f"{x:.2f}"


COLUMNS = {
    "chunked_prefill": (
        ("TTFT p50", "ttft_p50_s", _ms),
        ("TTFT p95", "ttft_p95_s", _ms),
        ("ITL p50", "itl_p50_s", _ms),
        ("ITL p95", "itl_p95_s", _ms),
        ("ITL p99", "itl_p99_s", _ms),
    ),
    "watermark": (
        ("preemptions", "preemptions", _int),
        ("recomputed tokens", "recomputed_tokens", _int),
        ("prompt tokens", "prompt_tokens", _int),
        ("CPU time", "seconds", _ms),
    ),
    "speculative": (
        ("steps", "steps", _int),
        ("tokens per sequence per decode step", "tokens_per_decode_step", _two),
        ("mean acceptance length", "acceptance_length", _two),
        ("CPU time", "seconds", _ms),
    ),
}
COLUMNS["prefix_caching"] = (
    *COLUMNS["chunked_prefill"][:2],
    ("preemptions", "preemptions", _int),
    ("prefix hit rate", "prefix_hit_rate", _pct),
)


def titles(which: str) -> tuple[str, str]:
    m = mechanism(which)
    if which == "chunked_prefill":
        return "no budget", f"token budget {m['token_budget']}"
    if which == "prefix_caching":
        return "no prefix cache", "prefix cache"
    if which == "watermark":
        return "no watermark", f"watermark {m['fraction']:.0%} of the pool"
    return "one token per step", f"n-gram draft of {m['draft_tokens']}"


def table(which: str) -> str:
    """Without against with, each cell the median over the seeds and its range."""
    columns = COLUMNS[which]
    lines = [
        "| engine | " + " | ".join(c[0] for c in columns) + " |",
        "| --- |" + " ---: |" * len(columns),
    ]
    sides = [r for r in ("without", "with") if r in mechanism(which)["runs"][0]]
    for side, title in zip(sides, titles(which), strict=True):
        if which == "speculative" and side == "without":
            cells = [spread(which, side, "steps", _int), "1.00", "-"]
            cells.append(spread(which, side, "seconds", _ms))
        else:
            cells = [spread(which, side, key, fmt) for _, key, fmt in columns]
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    return "\n".join([*lines, "", footnote(which)])


def footnote(which: str) -> str:
    seeds = ", ".join(str(r["seed"]) for r in mechanism(which)["runs"])
    return (
        f"*Median over seeds {seeds} (range in brackets), recomputed from every "
        f"request's record; {measured.footnote(measured.newest())[1:]}"
    )


def position_table() -> str:
    """Per-position conditional acceptance of the draft, one row per seed."""
    m = mechanism("speculative")
    k = m["draft_tokens"]
    lines = [
        "| seed | " + " | ".join(f"position {i + 1}" for i in range(k)) + " |",
        "| ---: |" + " ---: |" * k,
    ]
    for run in m["runs"]:
        rates = position_acceptance(draft_steps(run["with"]), k)
        lines.append(
            f"| {run['seed']} | " + " | ".join(f"{x:.2f}" for x in rates) + " |"
        )
    return "\n".join(lines)


def facts() -> dict[str, str]:
    """Every mechanism figure the pages state, medians over the seeds."""
    c, p = mechanism("chunked_prefill"), mechanism("prefix_caching")
    sp = mechanism("speculative")

    def med(which, side, key, fmt):
        return fmt(median(values(which, side, key)))

    first = sp["runs"][0]["with"]
    return {
        "seeds": str(len(sp["runs"])),
        "chunk_budget": str(c["token_budget"]),
        "itl_p99_without": med("chunked_prefill", "without", "itl_p99_s", _ms),
        "itl_p99_with": med("chunked_prefill", "with", "itl_p99_s", _ms),
        "chunk_ttft_p95_without": med("chunked_prefill", "without", "ttft_p95_s", _ms),
        "chunk_ttft_p95_with": med("chunked_prefill", "with", "ttft_p95_s", _ms),
        "prefix_tokens": str(p["shared_prefix_tokens"]),
        "prefix_hit_rate": med("prefix_caching", "with", "prefix_hit_rate", _pct),
        "prefix_ttft_p50_without": med("prefix_caching", "without", "ttft_p50_s", _ms),
        "prefix_ttft_p50_with": med("prefix_caching", "with", "ttft_p50_s", _ms),
        "watermark_preemptions_without": med(
            "watermark", "without", "preemptions", _int
        ),
        "watermark_preemptions_with": med("watermark", "with", "preemptions", _int),
        "spec_draft_tokens": str(sp["draft_tokens"]),
        "spec_acceptance": _pct(pooled_acceptance()),
        "spec_tokens_per_step": spread(
            "speculative", "with", "tokens_per_decode_step", _two
        ),
        "spec_acceptance_length": spread(
            "speculative", "with", "acceptance_length", _two
        ),
        "spec_no_draft": _pct(
            sum(p == 0 for p, _ in draft_steps(first)) / len(draft_steps(first))
        ),
        "spec_first_seed": str(sp["runs"][0]["seed"]),
        "spec_positions": ", ".join(
            f"{x:.2f}"
            for x in position_acceptance(draft_steps(first), sp["draft_tokens"])
        ),
    }


def pooled_acceptance() -> float:
    """Accepted over proposed draft tokens, all seeds pooled."""
    steps = [
        s for run in mechanism("speculative")["runs"] for s in draft_steps(run["with"])
    ]
    return sum(a for _, a in steps) / sum(p for p, _ in steps)


if __name__ == "__main__":
    for which in COLUMNS:
        print(table(which), "\n")
    print(position_table())
