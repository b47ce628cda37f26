"""Goodput, objectives, admission control and load shedding
(docs/inference/goodput-and-admission.md).

Standard library and matplotlib only. The engine's scheduler on the
simulator's clock, with the step time fitted to the committed CPU run, and
one addition: a bound on the queue. A request that arrives to a full queue is
refused at once (load shedding) instead of waiting past any objective.
"""

import functools

from snippets.lib.serving import measured
from snippets.lib.serving.scheduler import Scheduler, Sequence, StepClock, serve
from snippets.lib.serving.simulator import (
    StepTime,
    fit_step_time,
    poisson_arrivals,
    request_metrics,
)

#: A request is good when both hold. The bounds are set in decode steps of
#: a full batch on the committed run's fitted step time, so that they mean
#: the same on whatever CPU the run was measured: TTFT within six such
#: steps, TPOT within a quarter more than one.
SLO_STEPS = dict(ttft=6.0, tpot=1.25)
REQUESTS = 600
FRACTIONS = (0.5, 0.7, 0.9, 1.1, 1.3, 1.6)
#: The queue bound of the table and figure; exercise 2 asks about another.
QUEUE_LIMIT = 2
EX2_LIMIT = 1
#: Exercise 1: goodput from an attainment figure.
EX1 = dict(rate=200.0, good=0.9)


# --8<-- [start:shed]
class SheddingScheduler(Scheduler):
    """The engine's scheduler with a bounded queue: a request that arrives
    when `max_waiting` requests already wait is refused on the spot. A
    refused request is answered at once (with an error the client can retry
    elsewhere) rather than served late."""

    def __init__(self, *, max_waiting: int | None, **sizes):
        super().__init__(**sizes)
        if max_waiting is not None and max_waiting < 1:
            raise ValueError(
                f"max_waiting must be at least 1 or None, got {max_waiting}"
            )
        self.max_waiting = max_waiting
        self.refused: list[Sequence] = []

    def add(self, seq: Sequence) -> None:
        if self.max_waiting is not None and len(self.waiting) >= self.max_waiting:
            self.refused.append(seq)
            self.finished.append(seq)  # done, as far as the serving loop cares
            return
        super().add(seq)


# --8<-- [end:shed]


# --8<-- [start:goodput]
def goodput(rate: float, step_time: StepTime, max_waiting=None, seed: int = 0):
    """Serve REQUESTS Poisson arrivals at `rate` on the simulated clock;
    returns goodput (good requests per second), the share refused, and the
    share of served requests that met the objective."""
    s = measured.newest()["settings"]
    lo, hi = s["prompt_chars"]
    arrivals = poisson_arrivals(rate, REQUESTS, seed)
    seqs = [
        Sequence(
            i, [0] * (lo + (i * 7919 + seed) % (hi - lo + 1)), s["max_new_tokens"], t
        )
        for i, t in enumerate(arrivals)
    ]
    clock = StepClock()

    def step(batch):
        clock.t += step_time(len(batch), sum(q.chunk for q in batch))
        return [[0] for _ in batch]

    sched = SheddingScheduler(
        max_waiting=max_waiting,
        max_batch=s["max_batch"],
        block_size=s["block_size"],
        num_blocks=s["num_blocks"],
    )
    serve(sched, seqs, step, clock)
    refused = {q.seq_id for q in sched.refused}
    served = [q for q in seqs if q.seq_id not in refused]
    good, bound = 0, slo()
    for q in served:
        m = request_metrics(q.arrival, q.token_times)
        good += m["ttft"] <= bound["ttft_s"] and (
            m["tpot"] is None or m["tpot"] <= bound["tpot_s"]
        )
    span = max(q.token_times[-1] for q in served) - arrivals[0]
    return {
        "goodput_rps": good / span,
        "refused": len(refused) / len(seqs),
        "attainment_served": good / len(served),
    }


# --8<-- [end:goodput]


def step_time() -> StepTime:
    return fit_step_time(measured.all_steps(measured.newest()))


@functools.cache
def slo() -> dict:
    """The objective in seconds: SLO_STEPS times a full batch's decode step."""
    batch = measured.newest()["settings"]["max_batch"]
    full = step_time()(batch, batch)
    return {"ttft_s": SLO_STEPS["ttft"] * full, "tpot_s": SLO_STEPS["tpot"] * full}


@functools.cache
def sweep() -> list[dict]:
    """Goodput against offered load, with no bound and with QUEUE_LIMIT."""
    t = step_time()
    capacity = measured.newest()["settings"]["capacity_probe_rps"]
    rows = []
    for f in FRACTIONS:
        rate = f * capacity
        rows.append(
            {
                "fraction": f,
                "rate": rate,
                "unbounded": goodput(rate, t, None),
                "shed": goodput(rate, t, QUEUE_LIMIT),
            }
        )
    return rows


def table() -> str:
    lines = [
        "| offered (share of capacity) | goodput, no limit | good share "
        f"| goodput, queue of {QUEUE_LIMIT} | refused | good share of served |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in sweep():
        u, s = r["unbounded"], r["shed"]
        lines.append(
            f"| {r['rate']:.0f} req/s ({r['fraction']:.0%}) "
            f"| {u['goodput_rps']:.0f} req/s | {u['attainment_served']:.0%} "
            f"| {s['goodput_rps']:.0f} req/s | {s['refused']:.0%} "
            f"| {s['attainment_served']:.0%} |"
        )
    return "\n".join(lines)


def figure_goodput():
    """Goodput against offered load, with and without shedding."""
    from snippets.lib.diagrams import ACCENT, FONT_SIZE, INK, MUTED, SECOND, figure
    from snippets.lib.diagrams import style_axes as style

    rows = sweep()
    fig = figure(6.0, 3.0)
    ax = fig.add_subplot(1, 1, 1)
    x = [r["rate"] for r in rows]
    ax.plot(x, x, ":", color=MUTED, label="offered")
    ax.plot(
        x,
        [r["unbounded"]["goodput_rps"] for r in rows],
        marker="o",
        color=SECOND,
        label="no queue limit",
    )
    ax.plot(
        x,
        [r["shed"]["goodput_rps"] for r in rows],
        marker="o",
        color=ACCENT,
        label=f"queue of {QUEUE_LIMIT}, the rest refused",
    )
    ax.set_xlabel("offered load (requests/s)")
    ax.set_ylabel("goodput (requests/s)")
    style(ax, grid=True)
    ax.legend(frameon=False, labelcolor=INK, fontsize=FONT_SIZE - 2)
    fig.tight_layout()
    return fig


#: DistServe's attainment goal ("say, 90%"): its goodput is the highest
#: rate at which at least this share of requests meets the objective.
TARGET = 0.9


def distserve_text(rows: list[dict]) -> str:
    """Where DistServe's goodput lies on the sweep: between the highest load
    that meets TARGET with no limit and the next load, which does not."""
    met = [r for r in rows if r["unbounded"]["attainment_served"] >= TARGET]
    if not met:
        return f"below {rows[0]['rate']:.0f} requests/s"
    last = max(met, key=lambda r: r["rate"])
    above = [r for r in rows if r["rate"] > last["rate"]]
    if not above:
        return f"above {last['rate']:.0f} requests/s"
    return (
        f"between {last['rate']:.0f} and {min(r['rate'] for r in above):.0f} requests/s"
    )


def facts() -> dict[str, str]:
    """Every value the page states by name."""
    rows = sweep()
    top = rows[-1]
    best = max(rows, key=lambda r: r["unbounded"]["goodput_rps"])
    near = max((r for r in rows if r["fraction"] < 1), key=lambda r: r["fraction"])
    ex2 = goodput(top["rate"], step_time(), EX2_LIMIT)
    return {
        "slo": f"TTFT at most {slo()['ttft_s'] * 1e3:.1f} ms and TPOT at most "
        f"{slo()['tpot_s'] * 1e3:.1f} ms (six and 1.25 decode steps of a full batch)",
        "requests": str(REQUESTS),
        "queue_limit": str(QUEUE_LIMIT),
        "top_load": f"{top['fraction']:.0%}",
        "top_unbounded": f"{top['unbounded']['goodput_rps']:.0f} requests/s",
        "top_shed": f"{top['shed']['goodput_rps']:.0f} requests/s",
        "top_refused": f"{top['shed']['refused']:.0%}",
        "best_unbounded": "{:.0f} requests/s".format(best["unbounded"]["goodput_rps"]),
        "best_load": f"{best['fraction']:.0%}",
        "near_load": f"{near['fraction']:.0%}",
        "near_good": f"{near['unbounded']['attainment_served']:.0%}",
        "target": f"{TARGET:.0%}",
        "distserve": distserve_text(rows),
        "ex1_q": f"{EX1['rate']:g} requests/s of which {EX1['good']:.0%} meet it",
        "ex1_a": "{:.0f} requests/s".format(EX1["rate"] * EX1["good"]),
        "ex2_limit": str(EX2_LIMIT),
        "ex2_a": (
            f"{ex2['refused']:.0%} refused, goodput {ex2['goodput_rps']:.0f} "
            f"requests/s with {ex2['attainment_served']:.0%} of the served within "
            f"the objective, against {top['unbounded']['goodput_rps']:.0f} "
            "requests/s with no limit"
        ),
    }


if __name__ == "__main__":
    print("objective:", facts()["slo"])
    for r in sweep()[:3]:
        print(
            f"{r['rate']:.0f} req/s: goodput {r['unbounded']['goodput_rps']:.0f} req/s"
        )
