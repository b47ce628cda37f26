"""Capacity planning with the engine's simulator (docs/inference/capacity-planning.md).

Standard library and matplotlib only. The step time is fitted to the
committed CPU run of the serving engine; every figure here is therefore a
statement about that CPU, never about a GPU.
"""

import functools

from snippets.capacity_planning.calculator import replicas_needed
from snippets.lib.serving import measured
from snippets.lib.serving.simulator import (
    StepTime,
    fit_step_time,
    poisson_arrivals,
    simulate,
    summarize,
)

#: The service objective of the worked example (on the CPU engine's scale).
SLO = dict(ttft_p99_s=0.010, tpot_p50_s=0.002)
#: Offered loads swept, requests per second.
LOADS = (50, 100, 150, 200, 250, 300, 350, 400, 450)
REQUESTS = 300


def measured_step_time() -> StepTime:
    return fit_step_time(measured.all_steps(measured.newest()))


# --8<-- [start:sweep]
@functools.cache
def at_load(rate: float, step_time: StepTime, seed: int = 7) -> dict:
    """Simulate the engine's settings at one offered load; p50/p99 summary."""
    s = measured.newest()["settings"]
    lo, hi = s["prompt_chars"]
    arrivals = poisson_arrivals(rate, REQUESTS, seed)
    requests = [
        {
            "arrival": t,
            "prompt_tokens": lo + (i * 7919) % (hi - lo + 1),
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


def meets(row: dict, slo: dict = SLO) -> bool:
    return (
        row["ttft_p99_s"] <= slo["ttft_p99_s"]
        and row["tpot_p50_s"] <= slo["tpot_p50_s"]
    )


def max_load(step_time: StepTime, loads=LOADS) -> float:
    """The highest swept load that still meets the objective (0 if none)."""
    ok = [rate for rate in loads if meets(at_load(rate, step_time))]
    return max(ok, default=0.0)


# --8<-- [end:sweep]


# --8<-- [start:faster]
def faster_kernels(step_time: StepTime, speedup: float) -> StepTime:
    """The step time if the work that grows with the batch (per sequence and
    per token: the model's kernels) ran `speedup` times faster. The fixed
    part (Python, scheduling, launches) does not move."""
    return StepTime(
        step_time.fixed, step_time.per_seq / speedup, step_time.per_token / speedup
    )


# --8<-- [end:faster]


def text(what: str) -> str:
    if measured.newest() is None:
        return "(not measured yet)"
    base = measured_step_time()
    if what == "slo":
        return (
            f"p99 TTFT at most {SLO['ttft_p99_s'] * 1e3:g} ms and p50 TPOT at "
            f"most {SLO['tpot_p50_s'] * 1e3:g} ms"
        )
    if what == "max_load":
        return f"{max_load(base):g} requests/s"
    if what.startswith("max_load_x"):
        return f"{max_load(faster_kernels(base, float(what[10:]))):g} requests/s"
    if what == "fixed_share":  # of a decode step with a full batch of 8
        return f"{base.fixed / base(8, 8):.0%}"
    if what == "device":
        return measured.device_label(measured.newest())
    raise ValueError(f"what must name a text, got {what!r}")


def sweep_table() -> str:
    base = measured_step_time()
    lines = [
        "| offered (req/s) | TTFT p50 | TTFT p99 | TPOT p50 | meets the objective |",
        "| ---: | ---: | ---: | ---: | :---: |",
    ]
    for rate in LOADS:
        r = at_load(rate, base)
        lines.append(
            f"| {rate} | {r['ttft_p50_s'] * 1e3:.1f} ms "
            f"| {r['ttft_p99_s'] * 1e3:.1f} ms | {r['tpot_p50_s'] * 1e3:.2f} ms "
            f"| {'yes' if meets(r) else 'no'} |"
        )
    return "\n".join(lines)


def load_curve(speedup: float = 2.0):
    """p99 TTFT against offered load, simulated with the measured CPU step
    time and with kernels `speedup` times faster; the objective dashed."""
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
    for step_time, colour, label in (
        (base, SECOND, "measured step time (CPU)"),
        (faster_kernels(base, speedup), ACCENT, f"kernels {speedup:g}x faster"),
    ):
        y = [at_load(rate, step_time)["ttft_p99_s"] * 1e3 for rate in LOADS]
        ax.plot(LOADS, y, marker="o", color=colour, label=label)
    ax.axhline(SLO["ttft_p99_s"] * 1e3, color=MUTED, linestyle="--", label="objective")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("offered load (requests/s)")
    ax.set_ylabel("p99 TTFT (ms)")
    style_axes(ax, grid=True)
    ax.legend(frameon=False, labelcolor=INK, fontsize=FONT_SIZE)
    fig.tight_layout()
    return fig


# Exercise 1: Little's law for a GPU fleet (latencies as a reader measured).
EX1 = dict(
    requests_per_s=20.0, ttft_ms=300.0, tpot_ms=30.0, output_tokens=400, max_batch=64
)


def exercise_text(which: str) -> str:
    e = EX1
    if which == "ex1_q":
        return (
            f"{e['requests_per_s']:g} requests/s, TTFT {e['ttft_ms']:g} ms, "
            f"TPOT {e['tpot_ms']:g} ms, replies of {e['output_tokens']} "
            f"tokens, {e['max_batch']} sequences per replica"
        )
    if which == "ex1_a":
        return replicas_needed(**e)
    if which == "ex2_a":
        return (
            f"{text('max_load')} with the measured step time, "
            f"{text('max_load_x2')} with kernels twice as fast, "
            f"{text('max_load_x4')} four times as fast"
        )
    raise ValueError(f"which must name an exercise text, got {which!r}")


if __name__ == "__main__":
    print("step time:", measured.step_model_text())
    print("objective:", text("slo"))
    print(sweep_table())
    print(exercise_text("ex2_a"))
