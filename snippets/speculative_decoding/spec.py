"""Speculative decoding: the acceptance-rate arithmetic and when it pays
(docs/inference/speculative-decoding.md).

Standard library and matplotlib only. Tokens per verification step from
the acceptance rate and draft length (snippets/lib/serving/speculative.py),
and the cost of verifying k+1 tokens per sequence on the batching lesson's
H200 bound (snippets/lib/batching.py): nearly free while decode is
bandwidth-bound, not once the batch is large enough to be compute-bound.
"""

from kernels.devices import H200
from snippets.lib.batching import MODEL, kv_bytes_per_token, ridge_batch
from snippets.lib.serving.speculative import expected_tokens_per_step, speedup

ACCEPTANCE = (0.3, 0.5, 0.7, 0.9)
DRAFT_LENGTHS = (1, 2, 4, 8)


# --8<-- [start:verify-cost]
def verify_cost(batch: int, k: int, m: dict = MODEL, device=H200) -> float:
    """A step that feeds k+1 tokens per sequence against one that feeds one,
    on the H200 bound: the same weight and KV bytes (the draft tokens' own
    keys are a rounding error), k+1 times the matmul FLOPs (attention's
    FLOPs left out)."""
    weights = m["params"] * m["bytes_per_param"]
    kv = kv_bytes_per_token(
        m["layers"], m["kv_heads"], m["head_dim"], m["bytes_per_param"]
    )
    memory_s = (weights + batch * kv * m["context_tokens"]) / device.hbm_bytes_per_s

    def step(tokens_per_seq: int) -> float:
        flops = 2 * m["params"] * batch * tokens_per_seq
        return max(memory_s, flops / device.bf16_dense_flop_per_s)

    return step(k + 1) / step(1)


# --8<-- [end:verify-cost]


def table() -> str:
    """Expected tokens per verification step, acceptance against k."""
    head = "| acceptance | " + " | ".join(f"k = {k}" for k in DRAFT_LENGTHS) + " |"
    lines = [head, "| ---: |" + " ---: |" * len(DRAFT_LENGTHS)]
    for a in ACCEPTANCE:
        cells = " | ".join(
            f"{expected_tokens_per_step(a, k):.2f}" for k in DRAFT_LENGTHS
        )
        lines.append(f"| {a:.0%} | {cells} |")
    return "\n".join(lines)


def pays_table(acceptance: float = 0.7, k: int = 4) -> str:
    """Speed-up of an n-gram draft (free to run) by batch size, H200 bound."""
    lines = [
        "| batch | verify step / plain step | speed-up |",
        "| ---: | ---: | ---: |",
    ]
    for b in (1, 16, 64, 256):
        cost = verify_cost(b, k)
        lines.append(f"| {b} | {cost:.2f} | {speedup(acceptance, k, cost, 0.0):.2f}× |")
    return "\n".join(lines)


def figure_tokens_per_step():
    """Tokens per step against draft length, one line per acceptance rate."""
    from snippets.lib.diagrams import (
        ACCENT,
        FONT_SIZE,
        INK,
        MUTED,
        SECOND,
        figure,
        style_axes,
    )

    fig = figure(6.0, 3.0)
    ax = fig.add_subplot(1, 1, 1)
    ks = list(range(0, 11))
    for a, colour in zip(ACCEPTANCE, (MUTED, SECOND, ACCENT, INK), strict=True):
        ax.plot(
            ks,
            [expected_tokens_per_step(a, k) for k in ks],
            marker="o",
            color=colour,
            label=f"acceptance {a:.0%}",
        )
    ax.set_xlabel("draft tokens per step (k)")
    ax.set_ylabel("tokens per verification step")
    style_axes(ax, grid=True)
    ax.legend(frameon=False, labelcolor=INK, fontsize=FONT_SIZE - 2)
    fig.tight_layout()
    return fig


EX1 = dict(acceptance=0.6, k=4)
EX2 = dict(acceptance=0.7, k=4, batch=128)


def facts() -> dict[str, str]:
    """Every value the page states by name."""
    cost = verify_cost(EX2["batch"], EX2["k"])
    return {
        "ex1_q": f"an acceptance rate of {EX1['acceptance']:.0%} and k = {EX1['k']}",
        "ex1_a": f"{expected_tokens_per_step(**EX1):.2f} tokens per step",
        "ex2_q": (
            f"a batch of {EX2['batch']} sequences, acceptance "
            f"{EX2['acceptance']:.0%} and k = {EX2['k']}"
        ),
        "ex2_a": (
            f"a verification step costs {cost:.2f} plain steps, so the speed-up is "
            f"{speedup(EX2['acceptance'], EX2['k'], cost, 0.0):.2f}×"
        ),
        "limit_k4": f"{expected_tokens_per_step(1.0, 4):.0f}",
        "ridge_batch": f"{ridge_batch():.0f}",
        "engine_expected": f"{expected_tokens_per_step(engine_acceptance(), 4):.2f}",
    }


def engine_acceptance() -> float:
    """The n-gram draft's pooled acceptance (accepted over proposed tokens)
    in the committed engine run, all seeds together: the rate the formula
    would need to be right, were acceptance independent."""
    from snippets.lib.serving import mechanisms

    return mechanisms.pooled_acceptance()


if __name__ == "__main__":
    print(table())
    print(pays_table())
