"""Capacity planning with the engine's simulator (docs/inference/capacity-planning.md).

Standard library and matplotlib only. The step time is fitted to the
committed CPU run of the serving engine; every figure here is therefore a
statement about that CPU, never about a GPU.
"""

import functools

from evidence.text import inert
from snippets.capacity_planning.calculator import replicas_needed
from snippets.lib.serving import measured
from snippets.lib.serving.simulator import (
    StepTime,
    fit_step_time,
    poisson_arrivals,
    simulate,
    summarize,
)

#: The service objective of the worked example, on the CPU engine's scale:
#: in decode steps of a full batch on the committed run's fitted step time,
#: so that it means the same on whatever CPU measured it (p99 TTFT within
#: six such steps, p50 TPOT within a quarter more than one). Faster kernels
#: are judged against the same objective in seconds.
SLO_STEPS = dict(ttft_p99=6.0, tpot_p50=1.25)
#: Offered loads swept, requests per second.
LOADS = (20, 30, 40, 50, 60, 70, 80, 100, 120)
REQUESTS = 300
#: Arrival seeds the capacity answer is taken over: one seed's answer is a
#: single draw from a spread (the p99 of 300 requests is 3 of them).
SEEDS = tuple(range(8))


def measured_step_time() -> StepTime:
    return fit_step_time(measured.all_steps(measured.newest()))


# --8<-- [start:sweep]
@functools.cache
def at_load(rate: float, step_time: StepTime, seed: int = 0) -> dict:
    """Simulate the engine's settings at one offered load; p50/p99 summary."""
    s = measured.newest()["settings"]
    lo, hi = s["prompt_chars"]
    arrivals = poisson_arrivals(rate, REQUESTS, seed)
    requests = [
        {
            "arrival": t,
            "prompt_tokens": lo + (i * 7919 + seed) % (hi - lo + 1),
            "output_tokens": s["max_new_tokens"],
        }
        for i, t in enumerate(arrivals)
    ]
    out = simulate(
        requests,
        step_time,
        max_batch=s["max_batch"],
        block_size=s["block_size"],
        num_blocks=s["num_blocks"],
    )
    span = max(r["arrival"] + m["e2e"] for r, m in zip(requests, out, strict=True))
    return {"offered": rate, **summarize(out, span)}


@functools.cache
def objective() -> dict:
    """The objective in seconds: SLO_STEPS times a full batch's decode step
    on the measured step time."""
    batch = measured.newest()["settings"]["max_batch"]
    full = measured_step_time()(batch, batch)
    return {
        "ttft_p99_s": SLO_STEPS["ttft_p99"] * full,
        "tpot_p50_s": SLO_STEPS["tpot_p50"] * full,
    }


def meets(row: dict, slo: dict | None = None) -> bool:
    slo = slo or objective()
    return (
        row["ttft_p99_s"] <= slo["ttft_p99_s"]
        and row["tpot_p50_s"] <= slo["tpot_p50_s"]
    )


def max_load(step_time: StepTime, loads=None, seed: int = 0) -> float:
    """The highest swept load that meets the objective for one arrival seed,
    with every lower load meeting it too (0 if none)."""
    best = 0.0
    for rate in sorted(loads or LOADS):
        if not meets(at_load(rate, step_time, seed)):
            break
        best = rate
    return best


def capacity_spread(step_time: StepTime, seeds=None, loads=None) -> dict:
    """The capacity answer over many arrival seeds: the median (the lower
    one, so always an observed answer), the lowest and the highest."""
    answers = sorted(max_load(step_time, loads, seed) for seed in seeds or SEEDS)
    return {
        "median": answers[(len(answers) - 1) // 2],
        "low": answers[0],
        "high": answers[-1],
        "seeds": len(answers),
    }


# --8<-- [end:sweep]


# --8<-- [start:faster]
def faster_kernels(
    step_time: StepTime, speedup: float, fixed_is_kernel: bool = False
) -> StepTime:
    """The step time if the kernels ran `speedup` times faster.

    On this CPU run `per_token` is the matrix multiplications over every fed
    token (kernel work); `per_seq` is the engine's Python loop of small
    attention operations per sequence (interpreter work: a batched
    paged-attention kernel would remove it, faster kernels would not); and
    `fixed` is Python and scheduling. On a GPU the batch-independent part of
    a decode step is mostly reading the weights, which is kernel work: pass
    `fixed_is_kernel` and the fixed part shrinks too."""
    fixed = step_time.fixed / speedup if fixed_is_kernel else step_time.fixed
    return StepTime(fixed, step_time.per_seq, step_time.per_token / speedup)


# --8<-- [end:faster]


def measured_p99_near(rate: float) -> tuple[float, float, int] | None:
    """(offered load, p99 TTFT, requests) of the committed run's load
    nearest `rate`."""
    result = measured.newest()
    if not result:
        return None
    load = min(result["loads"], key=lambda x: abs(x["offered_rps"] - rate))
    return (
        load["offered_rps"],
        load["summary"]["ttft_p99_s"],
        len(load["requests"]["arrival_s"]),
    )


def _spread_text(spread: dict) -> str:
    return (
        f"{spread['median']:g} requests/s (median over {spread['seeds']} arrival "
        f"seeds; lowest {spread['low']:g}, highest {spread['high']:g})"
    )


def _median(values):
    ordered = sorted(values)
    return ordered[(len(ordered) - 1) // 2]


def sweep_table() -> str:
    """Per offered load: the p99 TTFT's median and range over the seeds, the
    median p50 TPOT, and how many seeds meet the objective."""
    base = measured_step_time()
    lines = [
        "| offered (req/s) | TTFT p99, median (range) | TPOT p50, median "
        "| seeds meeting the objective |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for rate in LOADS:
        rows = [at_load(rate, base, seed) for seed in SEEDS]
        p99 = sorted(r["ttft_p99_s"] * 1e3 for r in rows)
        tpot = _median(r["tpot_p50_s"] * 1e3 for r in rows)
        lines.append(
            f"| {rate} | {_median(p99):.1f} ms ({p99[0]:.1f}-{p99[-1]:.1f}) "
            f"| {tpot:.2f} ms | {sum(meets(r) for r in rows)} of {len(rows)} |"
        )
    return "\n".join(lines)


def load_curve(speedup: float = 2.0):
    """Median p99 TTFT over the seeds against offered load: the measured CPU
    step time, and kernels `speedup` times faster under both readings of
    the fixed part; the objective dashed."""
    from matplotlib.ticker import FormatStrFormatter, NullFormatter

    from snippets.lib.diagrams import (
        ACCENT,
        FONT_SIZE,
        INK,
        MUTED,
        SECOND,
        figure,
        style_axes,
    )

    base = measured_step_time()
    fig = figure(6.0, 3.0)
    ax = fig.add_subplot(1, 1, 1)
    for step_time, colour, style, label in (
        (base, SECOND, "-", "measured step time (CPU)"),
        (faster_kernels(base, speedup), ACCENT, "-", f"matmuls {speedup:g}x faster"),
        (
            faster_kernels(base, speedup, fixed_is_kernel=True),
            INK,
            ":",
            f"matmuls and fixed part {speedup:g}x faster",
        ),
    ):
        y = [
            _median(at_load(rate, step_time, seed)["ttft_p99_s"] for seed in SEEDS)
            * 1e3
            for rate in LOADS
        ]
        ax.plot(LOADS, y, style, marker="o", color=colour, label=label)
    ax.axhline(
        objective()["ttft_p99_s"] * 1e3, color=MUTED, linestyle="--", label="objective"
    )
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("offered load (requests/s)")
    ax.set_ylabel(f"p99 TTFT (ms), median of {len(SEEDS)}")
    style_axes(ax, grid=True)
    ax.legend(frameon=False, labelcolor=INK, fontsize=FONT_SIZE - 2)
    fig.tight_layout()
    return fig


# Exercise 1: Little's law for a GPU fleet (latencies as a reader measured),
# with KV memory for fewer sequences than the batch limit.
EX1 = dict(
    requests_per_s=20.0,
    ttft_ms=300.0,
    tpot_ms=30.0,
    output_tokens=400,
    max_batch=64,
    kv_sequences=40,
)


def exercise_question() -> str:
    e = EX1
    return (
        f"{e['requests_per_s']:g} requests/s, TTFT {e['ttft_ms']:g} ms, "
        f"TPOT {e['tpot_ms']:g} ms, replies of {e['output_tokens']} "
        f"tokens, a batch limit of {e['max_batch']} sequences per replica and "
        f"KV memory for {e['kv_sequences']} of them"
    )


def exercise2_answer(base: StepTime) -> str:
    cpu = capacity_spread(faster_kernels(base, 4.0))
    gpu = capacity_spread(faster_kernels(base, 4.0, fixed_is_kernel=True))
    return (
        f"{cpu['median']:g} requests/s when only the matmuls speed up, "
        f"{gpu['median']:g} requests/s when the fixed part is kernel work too "
        f"(medians over {len(SEEDS)} seeds)"
    )


def facts() -> dict[str, str]:
    """Every value the capacity page states by name."""
    if measured.newest() is None:
        return {}
    base = measured_step_time()
    p99s = sorted(at_load(100, base, seed)["ttft_p99_s"] for seed in SEEDS)
    near = measured_p99_near(100)
    return {
        "slo": (
            f"p99 TTFT at most {objective()['ttft_p99_s'] * 1e3:.1f} ms and p50 "
            f"TPOT at most {objective()['tpot_p50_s'] * 1e3:.1f} ms (six and 1.25 "
            "decode steps of a full batch)"
        ),
        "seeds": str(len(SEEDS)),
        "requests": str(REQUESTS),
        "max_load": _spread_text(capacity_spread(base)),
        "max_load_x2_cpu": _spread_text(capacity_spread(faster_kernels(base, 2.0))),
        "max_load_x2_gpu": _spread_text(
            capacity_spread(faster_kernels(base, 2.0, fixed_is_kernel=True))
        ),
        "fixed_share": f"{base.fixed / base(8, 8):.0%}",
        "per_seq_share": f"{8 * base.per_seq / base(8, 8):.0%}",
        "per_token_share": f"{8 * base.per_token / base(8, 8):.0%}",
        "device": inert(measured.device_label(measured.newest())),
        "p99_100_low": f"{p99s[0] * 1e3:.1f} ms",
        "p99_100_median": f"{_median(p99s) * 1e3:.1f} ms",
        "p99_100_high": f"{p99s[-1] * 1e3:.1f} ms",
        "engine_load": f"{near[0]:.0f} req/s" if near else "(not measured)",
        "engine_p99": f"{near[1] * 1e3:.1f} ms" if near else "(not measured)",
        "engine_requests": f"{near[2]}" if near else "(not measured)",
        "ex1_q": exercise_question(),
        "ex1_a": replicas_needed(**EX1),
        "ex2_a": exercise2_answer(base),
    }


if __name__ == "__main__":
    print("step time:", measured.step_model_text())
    print(sweep_table())
