"""Anatomy of a request's latency (docs/inference/request-latency.md).

Standard library only. Lower bounds for prefill and decode from a model's
size and a device's published figures, the latencies a client sees, and the
committed CPU run's spread of time to first token.
"""

from kernels.devices import H200
from snippets.lib.serving import measured
from snippets.lib.serving.simulator import percentile

#: The worked example: a dense model of 8 billion parameters in bf16 on one
#: H200, a prompt of 1,000 tokens and a reply of 200.
WORKED = dict(params=8e9, bytes_per_param=2, prompt_tokens=1000, output_tokens=200)


# --8<-- [start:bounds]
def prefill_seconds(params: float, prompt_tokens: int, flop_per_s: float) -> float:
    """Prefill does about 2 FLOPs per parameter per prompt token (a multiply
    and an add) and processes every prompt token at once: compute-bound."""
    return 2 * params * prompt_tokens / flop_per_s


def decode_step_seconds(params: float, bytes_per_param: float, bytes_per_s: float):
    """A decode step at batch 1 makes one token but must read every weight:
    memory-bound, so the weights' bytes over bandwidth bound it from below."""
    return params * bytes_per_param / bytes_per_s


def end_to_end(ttft: float, tpot: float, output_tokens: int) -> float:
    """The first token after TTFT, then one every TPOT."""
    return ttft + (output_tokens - 1) * tpot


# --8<-- [end:bounds]


def worked() -> dict:
    w = WORKED
    ttft = prefill_seconds(w["params"], w["prompt_tokens"], H200.bf16_dense_flop_per_s)
    tpot = decode_step_seconds(w["params"], w["bytes_per_param"], H200.hbm_bytes_per_s)
    return {
        "ttft": ttft,
        "tpot": tpot,
        "e2e": end_to_end(ttft, tpot, w["output_tokens"]),
    }


def ms(seconds: float) -> str:
    """Milliseconds below a second, seconds above."""
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def worked_text(what: str) -> str:
    """Numbers of the worked example, for the prose."""
    w, r = WORKED, worked()
    texts = {
        "params": f"{w['params'] / 1e9:.0f} billion",
        "prompt": f"{w['prompt_tokens']:,}",
        "output": f"{w['output_tokens']:,}",
        "weights_gb": f"{w['params'] * w['bytes_per_param'] / 1e9:.0f} GB",
        "ttft": ms(r["ttft"]),
        "tpot": ms(r["tpot"]),
        "e2e": ms(r["e2e"]),
        "decode_share": f"{(r['e2e'] - r['ttft']) / r['e2e']:.0%}",
        "flops": f"{H200.bf16_dense_flop_per_s / 1e12:.0f} TFLOP/s",
        "bandwidth": f"{H200.hbm_bytes_per_s / 1e12:.1f} TB/s",
    }
    return texts[what]


# --8<-- [start:tail]
def ttft_spread(load_index: int | None = None) -> dict:
    """Mean, p50 and p99 of TTFT at one offered load of the CPU run; by
    default the load whose p99 stood furthest above its p50."""
    loads = measured.newest()["loads"]

    def ratio(load):
        ttft = load["requests"]["ttft"]
        return percentile(ttft, 99) / percentile(ttft, 50)

    load = max(loads, key=ratio) if load_index is None else loads[load_index]
    ttft = load["requests"]["ttft"]
    return {
        "offered": load["offered_rps"],
        "mean": sum(ttft) / len(ttft),
        "p50": percentile(ttft, 50),
        "p99": percentile(ttft, 99),
        "count": len(ttft),
    }


# --8<-- [end:tail]


def spread_text(what: str, load_index: int | None = None) -> str:
    if measured.newest() is None:
        return "(not measured yet)"
    s = ttft_spread(load_index)
    if what == "offered":
        return f"{s[what]:.0f}"
    if what == "count":
        return f"{s[what]:g}"
    return ms(s[what])


# Exercise 1: a reply's length from TTFT and TPOT.
EX1 = dict(ttft=0.35, tpot=0.025, output_tokens=400)
# Exercise 2: ten measured latencies (ms); which summary tells the truth?
EX2 = [41, 38, 44, 40, 39, 42, 37, 43, 40, 610]


def rank_text(q: float, n: int) -> str:
    """Which sorted sample the nearest-rank q-th percentile of n samples is,
    counted from the slowest ("the slowest", "the 2nd slowest", ...)."""
    rank = -(-q * n // 100)  # the rule of simulator.percentile
    from_top = n - int(rank) + 1
    if from_top == 1:
        return "the slowest"
    suffix = {2: "nd", 3: "rd"}.get(from_top, "th")
    return f"the {from_top}{suffix} slowest"


def _own_facts() -> dict[str, str]:
    """Values the page states by name."""
    return {
        "p99_of_100": rank_text(99, 100),
        "p99_of_1000": rank_text(99, 1000),
    }


def exercise_text(which: str) -> str:
    if which == "ex1_q":
        return (
            f"TTFT of {ms(EX1['ttft'])} and TPOT of {ms(EX1['tpot'])}, "
            f"a reply of {EX1['output_tokens']} tokens"
        )
    if which == "ex1_a":
        return ms(end_to_end(EX1["ttft"], EX1["tpot"], EX1["output_tokens"]))
    if which == "ex2_q":
        return ", ".join(str(x) for x in EX2) + " ms"
    if which == "ex2_a":
        mean = sum(EX2) / len(EX2)
        return (
            f"mean {mean:.0f} ms, p50 {percentile(EX2, 50)} ms, "
            f"p90 {percentile(EX2, 90)} ms, p99 {percentile(EX2, 99)} ms"
        )
    raise ValueError(f"which must name an exercise text, got {which!r}")


def timeline(output_tokens: int = 8, queue_steps: float = 1.5):
    """One request on a time axis: waiting, prefill, then one decode step per
    token, with TTFT and TPOT marked. Durations in units of one decode step."""
    from snippets.lib.diagrams import ACCENT, FONT_SIZE, INK, MUTED, SECOND, figure

    prefill = 3.0  # a prefill as long as three decode steps, for the picture
    fig = figure(6.5, 2.2)
    ax = fig.add_subplot(1, 1, 1)
    ax.barh(0, queue_steps, left=0, color=MUTED, alpha=0.5, edgecolor=INK)
    ax.text(queue_steps / 2, 0, "queue", ha="center", va="center", color=INK)
    ax.barh(0, prefill, left=queue_steps, color=SECOND, edgecolor=INK)
    ax.text(
        queue_steps + prefill / 2, 0, "prefill", ha="center", va="center", color=INK
    )
    start = queue_steps + prefill
    for i in range(output_tokens - 1):
        ax.barh(0, 1.0, left=start + i, color=ACCENT, edgecolor=INK)
    ticks = [start + i for i in range(output_tokens)]
    ax.plot(ticks, [0.55] * output_tokens, "v", color=INK)
    ax.annotate(
        "",
        xy=(0, -0.7),
        xytext=(start, -0.7),
        arrowprops=dict(arrowstyle="<->", color=INK),
    )
    ax.text(
        start / 2, -0.95, "TTFT", ha="center", va="top", color=INK, fontsize=FONT_SIZE
    )
    ax.annotate(
        "",
        xy=(start + 1, -0.7),
        xytext=(start + 2, -0.7),
        arrowprops=dict(arrowstyle="<->", color=INK),
    )
    ax.text(start + 1.5, -0.95, "TPOT", ha="center", va="top", color=INK)
    ax.text(ticks[-1] + 0.3, 0.55, "tokens", va="center", color=INK)
    ax.set_xlim(-0.2, ticks[-1] + 2)
    ax.set_ylim(-1.6, 1.0)
    ax.axis("off")
    return fig


def facts() -> dict[str, str]:
    """Every value the pages state by name."""
    out = {
        "ex1_a": exercise_text("ex1_a"),
        "ex1_q": exercise_text("ex1_q"),
        "ex2_a": exercise_text("ex2_a"),
        "ex2_q": exercise_text("ex2_q"),
        "spread.count": spread_text("count"),
        "spread.mean": spread_text("mean"),
        "spread.offered": spread_text("offered"),
        "spread.p50": spread_text("p50"),
        "spread.p99": spread_text("p99"),
        "worked.bandwidth": worked_text("bandwidth"),
        "worked.decode_share": worked_text("decode_share"),
        "worked.e2e": worked_text("e2e"),
        "worked.flops": worked_text("flops"),
        "worked.output": worked_text("output"),
        "worked.params": worked_text("params"),
        "worked.prompt": worked_text("prompt"),
        "worked.tpot": worked_text("tpot"),
        "worked.ttft": worked_text("ttft"),
        "worked.weights_gb": worked_text("weights_gb"),
    }
    out.update(_own_facts())
    return out


if __name__ == "__main__":
    for key in ("ttft", "tpot", "e2e", "decode_share"):
        print(key, worked_text(key))
    for n in (100, 1000):
        print(f"p99 of {n} requests is {rank_text(99, n)}")
