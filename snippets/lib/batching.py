"""Batching: what it buys and what it costs (docs/inference/batching.md).

Standard library only. A bandwidth model of one decode step at batch b, and a
slot-by-slot replay of static against continuous batching.
"""

from kernels.devices import H200

#: An example dense model: 8 billion parameters in bf16, 32 layers, 8 key/value
#: heads of width 128 (grouped-query attention), and sequences holding 1,000
#: tokens of context on average. The shape is typical, not a product's.
MODEL = dict(
    params=8e9,
    bytes_per_param=2,
    layers=32,
    kv_heads=8,
    head_dim=128,
    context_tokens=1000,
)


# --8<-- [start:decode-step]
def kv_bytes_per_token(layers: int, kv_heads: int, head_dim: int, itemsize: int):
    """A key and a value vector per layer and key/value head."""
    return 2 * layers * kv_heads * head_dim * itemsize


def decode_step(
    batch: int,
    m: dict = MODEL,
    bytes_per_s: float = H200.hbm_bytes_per_s,
    flop_per_s: float = H200.bf16_dense_flop_per_s,
):
    """Lower bound of one decode step at `batch` sequences: the weights are
    read once for the whole batch, each sequence's KV cache once for itself,
    and each sequence's token costs 2 FLOPs per parameter. The larger of the
    two times bounds the step: bytes at small batch, FLOPs past the ridge."""
    weights = m["params"] * m["bytes_per_param"]
    kv = (
        kv_bytes_per_token(
            m["layers"], m["kv_heads"], m["head_dim"], m["bytes_per_param"]
        )
        * m["context_tokens"]
    )
    memory_s = (weights + batch * kv) / bytes_per_s
    compute_s = 2 * m["params"] * batch / flop_per_s
    seconds = max(memory_s, compute_s)
    return {
        "batch": batch,
        "step_s": seconds,
        "tokens_per_s": batch / seconds,
        "bound": "compute" if compute_s > memory_s else "memory",
    }


def short_context_limit(m: dict = MODEL, device=H200) -> float:
    """Context (tokens) below which a sequence's KV read takes less time than
    its matmul FLOPs, so that a large enough batch turns compute-bound."""
    kv = kv_bytes_per_token(
        m["layers"], m["kv_heads"], m["head_dim"], m["bytes_per_param"]
    )
    flop_s = 2 * m["params"] / device.bf16_dense_flop_per_s
    return flop_s * device.hbm_bytes_per_s / kv


def ridge_batch(m: dict = MODEL, device=H200) -> float:
    """The batch at which the matmuls' FLOPs take as long as reading the
    weights (ignoring the KV reads): peak FLOP/s over bandwidth, times the
    bytes per parameter over the 2 FLOPs each parameter costs per token."""
    return (
        device.bf16_dense_flop_per_s
        * m["bytes_per_param"]
        / (2 * device.hbm_bytes_per_s)
    )


# --8<-- [end:decode-step]


def decode_table(batches=(1, 8, 32, 128)) -> str:
    """Step time and tokens per second against batch size (pencil model)."""
    lines = [
        "| batch | step (bound) | tokens/s (bound) | vs batch 1 |",
        "| ---: | ---: | ---: | ---: |",
    ]
    base = decode_step(1)["tokens_per_s"]
    for b in batches:
        r = decode_step(b)
        lines.append(
            f"| {b} | {r['step_s'] * 1e3:.1f} ms "
            f"| {r['tokens_per_s']:,.0f} | {r['tokens_per_s'] / base:.1f}× |"
        )
    return "\n".join(lines)


def model_text(what: str) -> str:
    m = MODEL
    kv = kv_bytes_per_token(
        m["layers"], m["kv_heads"], m["head_dim"], m["bytes_per_param"]
    )
    texts = {
        "weights_gb": f"{m['params'] * m['bytes_per_param'] / 1e9:.0f} GB",
        "kv_per_token": f"{kv / 2**10:.0f} KiB",
        "kv_per_seq_mb": f"{kv * m['context_tokens'] / 1e6:.0f} MB",
        "context": f"{m['context_tokens']:,}",
        "crossover": "{:.0f}".format(
            m["params"] * m["bytes_per_param"] / (kv * m["context_tokens"])
        ),
        "ridge_batch": f"{ridge_batch():.0f}",
        "kv_ms_per_seq": (
            f"{kv * m['context_tokens'] / H200.hbm_bytes_per_s * 1e3:.3f} ms"
        ),
        "flop_ms_per_seq": (
            f"{2 * m['params'] / H200.bf16_dense_flop_per_s * 1e3:.3f} ms"
        ),
        "short_context": f"{short_context_limit():.0f}",
    }
    return texts[what]


# --8<-- [start:slots]
def static_schedule(lengths: list[int], batch: int) -> list[list[int | None]]:
    """Static batching: take `batch` requests, run until the longest is done,
    then take the next batch. Each step lists which request holds each slot
    (None: an idle slot, its request already finished)."""
    steps = []
    for first in range(0, len(lengths), batch):
        group = list(range(first, min(first + batch, len(lengths))))
        for t in range(max(lengths[i] for i in group)):
            row = [i if t < lengths[i] else None for i in group]
            steps.append(row + [None] * (batch - len(group)))
    return steps


def continuous_schedule(lengths: list[int], batch: int) -> list[list[int | None]]:
    """Continuous (iteration-level) batching: a finished request leaves after
    its step and the next in line takes its slot at the following step."""
    queue, slots, left, steps = list(range(len(lengths))), [None] * batch, {}, []
    while queue or any(s is not None for s in slots):
        for k in range(batch):
            if slots[k] is None and queue:
                slots[k] = queue.pop(0)
                left[slots[k]] = lengths[slots[k]]
        steps.append(list(slots))
        for k, i in enumerate(slots):
            if i is not None:
                left[i] -= 1
                if left[i] == 0:
                    slots[k] = None
    return steps


def utilization(steps: list[list[int | None]]) -> float:
    """Busy slot-steps over all slot-steps."""
    busy = sum(s is not None for row in steps for s in row)
    return busy / sum(len(row) for row in steps)


def finish_steps(steps: list[list[int | None]]) -> dict[int, int]:
    """The step (1-based) at which each request produced its last token."""
    last = {}
    for t, row in enumerate(steps, start=1):
        for i in row:
            if i is not None:
                last[i] = t
    return last


# --8<-- [end:slots]


#: Output lengths of twelve requests, in arrival order, served four at a time.
LENGTHS = [3, 9, 4, 12, 2, 7, 5, 10, 6, 3, 8, 4]
BATCH = 4


def compare() -> dict:
    out = {}
    for name, schedule in (
        ("static", static_schedule),
        ("continuous", continuous_schedule),
    ):
        steps = schedule(LENGTHS, BATCH)
        done = finish_steps(steps)
        out[name] = {
            "steps": len(steps),
            "utilization": utilization(steps),
            "mean_finish": sum(done.values()) / len(done),
        }
    return out


def compare_text(name: str, what: str) -> str:
    r = compare()[name][what]
    return (
        f"{r:.0%}"
        if what == "utilization"
        else f"{r:g}"
        if isinstance(r, int)
        else f"{r:.1f}"
    )


def lengths_text() -> str:
    named = ", ".join(f"{request_label(i)} {n}" for i, n in enumerate(LENGTHS))
    return (
        f"{len(LENGTHS)} requests, A to {request_label(len(LENGTHS) - 1)}, "
        f"with output lengths {named}, {BATCH} slots"
    )


def request_label(index: int) -> str:
    """Request 0 is A, 1 is B, ...: one glyph per cell of the schedule."""
    return chr(ord("A") + index)


def gantt(lengths: list[int] = LENGTHS, batch: int = BATCH):
    """Slots (rows) against steps (columns) for both policies; a coloured
    cell is a slot doing useful work, an empty one is idle."""
    from matplotlib.patches import Rectangle

    from snippets.lib.diagrams import (
        ACCENT,
        FONT_SIZE,
        INK,
        MUTED,
        SECOND,
        figure,
        style_axes,
    )

    schedules = [
        ("static", static_schedule(lengths, batch), SECOND),
        ("continuous", continuous_schedule(lengths, batch), ACCENT),
    ]
    width = max(len(s) for _, s, _ in schedules)
    fig = figure(6.8, 3.4)
    for k, (name, steps, colour) in enumerate(schedules):
        ax = fig.add_subplot(2, 1, k + 1)
        for t, row in enumerate(steps):
            for slot, req in enumerate(row):
                busy = req is not None
                ax.add_patch(
                    Rectangle(
                        (t, slot),
                        1,
                        1,
                        edgecolor=MUTED,
                        facecolor=colour if busy else "none",
                        alpha=0.85 if busy else 1,
                        linewidth=0.5,
                    )
                )
                if busy:
                    # Letters, not numbers: a two-digit id overflows a cell.
                    ax.text(
                        t + 0.5,
                        slot + 0.5,
                        request_label(req),
                        ha="center",
                        va="center",
                        color=INK,
                        fontsize=FONT_SIZE - 2,
                    )
        ax.set_xlim(0, width)
        ax.set_ylim(0, batch)
        ax.set_yticks([k + 0.5 for k in range(batch)], range(batch))
        ax.set_ylabel(f"{name}\nslot")
        style_axes(ax)
    ax.set_xlabel("decode step")
    fig.tight_layout()
    return fig


# Exercise 2: a static batch and its idle slots.
EX_LENGTHS = [20, 500, 30, 40]


def exercise_text(which: str) -> str:
    if which == "ex1_q":
        return (
            f"{model_text('weights_gb')} of weights and {model_text('kv_per_seq_mb')}"
        )
    if which == "ex1_a":
        a, b = decode_step(1), decode_step(64)
        return (
            f"batch 1: {a['step_s'] * 1e3:.1f} ms per step, "
            f"{a['tokens_per_s']:,.0f} tokens/s; batch 64: "
            f"{b['step_s'] * 1e3:.1f} ms per step, {b['tokens_per_s']:,.0f} "
            f"tokens/s ({b['tokens_per_s'] / a['tokens_per_s']:.0f}× the "
            f"throughput for {b['step_s'] / a['step_s']:.1f}× the step time)"
        )
    if which == "ex2_q":
        return ", ".join(str(x) for x in EX_LENGTHS)
    if which == "ex2_a":
        steps = static_schedule(EX_LENGTHS, len(EX_LENGTHS))
        return (
            f"{len(steps)} steps, {utilization(steps):.0%} of slot-steps busy; "
            f"continuous batching with a queue behind them refills the "
            f"idle slots after the first request finishes at step "
            f"{min(EX_LENGTHS)}"
        )
    raise ValueError(f"which must name an exercise text, got {which!r}")


def facts() -> dict[str, str]:
    """Every value the pages state by name."""
    out = {
        "continuous.mean_finish": compare_text("continuous", "mean_finish"),
        "continuous.steps": compare_text("continuous", "steps"),
        "continuous.utilization": compare_text("continuous", "utilization"),
        "ex1_a": exercise_text("ex1_a"),
        "ex1_q": exercise_text("ex1_q"),
        "ex2_a": exercise_text("ex2_a"),
        "ex2_q": exercise_text("ex2_q"),
        "lengths": lengths_text(),
        "model.context": model_text("context"),
        "model.crossover": model_text("crossover"),
        "model.flop_ms_per_seq": model_text("flop_ms_per_seq"),
        "model.kv_ms_per_seq": model_text("kv_ms_per_seq"),
        "model.kv_per_seq_mb": model_text("kv_per_seq_mb"),
        "model.kv_per_token": model_text("kv_per_token"),
        "model.ridge_batch": model_text("ridge_batch"),
        "model.short_context": model_text("short_context"),
        "model.weights_gb": model_text("weights_gb"),
        "static.mean_finish": compare_text("static", "mean_finish"),
        "static.steps": compare_text("static", "steps"),
        "static.utilization": compare_text("static", "utilization"),
    }
    return out


if __name__ == "__main__":
    print(decode_table())
    for name, r in compare().items():
        print(
            f"{name:10}: {r['steps']} steps, {r['utilization']:.0%} busy, "
            f"mean finish step {r['mean_finish']:.1f}"
        )
