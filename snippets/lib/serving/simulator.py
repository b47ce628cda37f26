"""The engine's scheduler on a simulated clock (docs/inference/capacity-planning.md).

Standard library only. The scheduling does not depend on which tokens the
model picks (no request stops early), so the simulator runs the very same
Scheduler and serve loop as engine.py and replaces the forward pass by a
step time fitted to the engine's measured steps: the CPU's today, a GPU's
once a GPU run records them.
"""

from dataclasses import dataclass

from snippets.lib.serving.scheduler import Scheduler, Sequence, StepClock, serve


# --8<-- [start:percentile]
def percentile(values: list[float], q: float) -> float:
    """The q-th percentile by nearest rank: the smallest value with at least
    q% of the values at or below it. Always a value that was observed."""
    if not values:
        raise ValueError("values is empty")
    if not 0 < q <= 100:
        raise ValueError(f"q must be in (0, 100], got {q}")
    ordered = sorted(values)
    rank = -(-q * len(ordered) // 100)  # ceiling of q% of n
    return ordered[int(rank) - 1]


# --8<-- [end:percentile]


# --8<-- [start:request-metrics]
def request_metrics(arrival: float, token_times: list[float]) -> dict:
    """TTFT: arrival to first token. TPOT: the mean gap between later tokens
    (None for a one-token reply). Inter-token latencies: every gap."""
    gaps = [b - a for a, b in zip(token_times[:-1], token_times[1:], strict=True)]
    return {
        "ttft": token_times[0] - arrival,
        "tpot": sum(gaps) / len(gaps) if gaps else None,
        "itl": gaps,
        "e2e": token_times[-1] - arrival,
    }


# --8<-- [end:request-metrics]


# --8<-- [start:summarize]
def summarize(requests: list[dict], span: float, slo: dict | None = None) -> dict:
    """p50/p95/p99 of TTFT, TPOT (per request), ITL (every gap of every
    request, pooled, as vLLM's benchmark does) and end-to-end latency, in
    seconds; throughput; and with an objective (slo: ttft_s, tpot_s) the
    goodput: requests per second that met both bounds."""
    series = {
        "ttft": [r["ttft"] for r in requests],
        "tpot": [r["tpot"] for r in requests if r["tpot"] is not None],
        "itl": [g for r in requests for g in r.get("itl", [])],
        "e2e": [r["e2e"] for r in requests if "e2e" in r],
    }
    out = {}
    for name, values in series.items():
        for q in (50, 95, 99):
            out[f"{name}_p{q}_s"] = percentile(values, q) if values else None
    tokens = sum(r["output_tokens"] for r in requests)
    out["output_tokens_per_s"] = tokens / span
    out["requests_per_s"] = len(requests) / span
    if slo is not None:
        good = sum(
            r["ttft"] <= slo["ttft_s"]
            and (r["tpot"] is None or r["tpot"] <= slo["tpot_s"])
            for r in requests
        )
        out["goodput_rps"] = good / span
        out["slo_attainment"] = good / len(requests)
    return out


# --8<-- [end:summarize]


# --8<-- [start:step-model]
@dataclass(frozen=True)
class StepTime:
    """Seconds per step = fixed + per_seq * sequences + per_token * tokens fed."""

    fixed: float
    per_seq: float
    per_token: float

    def __call__(self, seqs: int, tokens: int) -> float:
        return self.fixed + self.per_seq * seqs + self.per_token * tokens


def fit_step_time(steps: list[dict]) -> StepTime:
    """Least squares over measured steps (the normal equations, 3 by 3).
    A step dict may stand for `count` identical steps of mean `seconds`:
    the sums below, and so the fit, come out the same."""
    a = [[0.0] * 3 for _ in range(3)]
    b = [0.0] * 3
    for s in steps:
        row = (1.0, s["seqs"], s["prefill_tokens"] + s["decode_tokens"])
        n = s.get("count", 1)
        for i in range(3):
            b[i] += n * row[i] * s["seconds"]
            for j in range(3):
                a[i][j] += n * row[i] * row[j]
    for col in range(3):  # Gaussian elimination with partial pivoting
        pivot = max(range(col, 3), key=lambda r: abs(a[r][col]))
        a[col], a[pivot], b[col], b[pivot] = a[pivot], a[col], b[pivot], b[col]
        if abs(a[col][col]) < 1e-12:
            raise ValueError("steps do not vary enough to fit a step time")
        for r in range(col + 1, 3):
            f = a[r][col] / a[col][col]
            a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
            b[r] -= f * b[col]
    x = [0.0, 0.0, 0.0]
    for i in (2, 1, 0):
        x[i] = (b[i] - sum(a[i][j] * x[j] for j in range(i + 1, 3))) / a[i][i]
    return StepTime(*x)


# --8<-- [end:step-model]


# --8<-- [start:simulate]
SimClock = StepClock  # simulated seconds: a step advances it, waiting jumps it


def simulate(
    requests,
    step_time,
    *,
    max_batch,
    block_size,
    num_blocks,
    token_budget=None,
    watermark=0.0,
    step_cost=None,
):
    """Serve `requests` (dicts with arrival, prompt_tokens, output_tokens)
    on a simulated clock; returns one metrics dict per request. (Prefix
    caching and drafts depend on the tokens' values, which the simulator
    does not have: it models neither.) step_cost: instead of step_time, a
    function (seqs, prefill_tokens, decode_tokens) -> seconds, for models
    that price the two kinds of token apart."""
    clock = SimClock()

    def step(batch):
        fed = sum(s.chunk for s in batch)
        if step_cost is None:
            clock.t += step_time(len(batch), fed)
        else:
            decode = sum(s.cached == s.known - 1 for s in batch)
            clock.t += step_cost(len(batch), fed - decode, decode)
        return [[0] for _ in batch]  # a token's value never changes the schedule

    seqs = [
        Sequence(i, [0] * r["prompt_tokens"], r["output_tokens"], r["arrival"])
        for i, r in enumerate(requests)
    ]
    sched = Scheduler(
        max_batch=max_batch,
        block_size=block_size,
        num_blocks=num_blocks,
        token_budget=token_budget,
        watermark=watermark,
    )
    done = serve(sched, seqs, step, clock)
    return [
        {**request_metrics(s.arrival, s.token_times), "output_tokens": s.limit}
        for s in done
    ]


# --8<-- [end:simulate]


def poisson_arrivals(rate: float, count: int, seed: int) -> list[float]:
    """Arrival times of a Poisson process: exponential gaps of mean 1/rate."""
    import random

    if rate <= 0:
        raise ValueError(f"rate must be positive, got {rate}")
    rng = random.Random(seed)
    t, times = 0.0, []
    for _ in range(count):
        t += rng.expovariate(rate)
        times.append(t)
    return times


if __name__ == "__main__":
    model = StepTime(fixed=0.004, per_seq=0.001, per_token=0.0001)
    for rate in (5.0, 20.0, 60.0):
        reqs = [
            {"arrival": t, "prompt_tokens": 20, "output_tokens": 16}
            for t in poisson_arrivals(rate, 200, seed=1)
        ]
        out = simulate(reqs, model, max_batch=8, block_size=16, num_blocks=64)
        span = max(r["arrival"] + m["e2e"] for r, m in zip(reqs, out, strict=True))
        s = summarize(out, span)
        print(
            f"{rate:5.1f} req/s: TTFT p50 {s['ttft_p50_s'] * 1e3:6.1f} ms, "
            f"p99 {s['ttft_p99_s'] * 1e3:6.1f} ms; "
            f"TPOT p50 {s['tpot_p50_s'] * 1e3:5.1f} ms"
        )
