"""The worked problems of the training-memory lesson: every number the page
states is returned, as text, by a function here."""

import json
from pathlib import Path

from kernels.devices import H200
from snippets.lib.training_memory.budget import (
    BYTES_PER_PARAMETER,
    FP32_GRADIENT_BYTES,
    GB,
    MODELS,
    RECOMPUTE,
    ModelConfig,
    activation_bytes_per_layer,
    gb,
    model_state_bytes,
    parameter_count,
    training_memory_bytes,
    working_set_bytes,
)

RUN_RECORD = Path(__file__).resolve().parents[3] / "results" / "tiny_lm" / "run.json"

# The lesson's running example: one sequence of Llama-3's training length.
WORKED = {"micro_batch": 1, "seq_len": 8192, "data_parallel": 16}


def model(key: str) -> ModelConfig:
    if key not in MODELS:
        raise ValueError(f"model must be one of {sorted(MODELS)}, got {key!r}")
    return MODELS[key]


def fmt_params(key: str) -> str:
    return f"{parameter_count(model(key))['total'] / 1e9:.2f} billion"


def config_value(key: str, field: str) -> str:
    return f"{getattr(model(key), field):,}"


def bytes_per_parameter() -> int:
    return sum(BYTES_PER_PARAMETER.values())


def fp32_gradient_bytes() -> int:
    """Bytes per parameter when the gradients are kept in fp32."""
    return (
        bytes_per_parameter()
        - BYTES_PER_PARAMETER["bf16 gradient"]
        + FP32_GRADIENT_BYTES
    )


def fmt_bytes_per_parameter() -> str:
    return f"{bytes_per_parameter()} bytes"


# Problem 1: the model states of the 8B model against one H200.
def model_state_gb(key: str, gradient_bytes: int = 2) -> float:
    """The predict box's answer: weights + gradients + Adam state, in GB."""
    params = parameter_count(model(key))["total"]
    state = model_state_bytes(params, gradient_bytes=gradient_bytes)
    return round(sum(state.values()) / GB, 1)


def fmt_model_state(key: str) -> str:
    return f"{model_state_gb(key):.1f} GB"


def fmt_state_headroom(key: str, gradient_bytes: int = 2) -> str:
    """What one H200 has left once the model states are in."""
    params = parameter_count(model(key))["total"]
    state = model_state_bytes(params, gradient_bytes=gradient_bytes)
    left = H200.memory_bytes - sum(state.values())
    if left < 0:
        return f"short by {gb(-left)}"
    return f"{gb(left)} left for activations"


# Problem 2: activations per token, per layer, in each recompute mode.
def per_token_layer_bytes(key: str, recompute: str) -> float:
    cfg = model(key)
    s, b = WORKED["seq_len"], WORKED["micro_batch"]
    return activation_bytes_per_layer(s, b, cfg.hidden, cfg.heads, recompute) / (s * b)


def fmt_per_token_layer(key: str, recompute: str) -> str:
    return f"{per_token_layer_bytes(key, recompute) / 1024:,.0f} KiB"


def fmt_activations(key: str, recompute: str) -> str:
    """All layers' saved activations for the worked micro-batch."""
    cfg = model(key)
    parts = training_memory_bytes(
        cfg, WORKED["micro_batch"], WORKED["seq_len"], recompute
    )
    return gb(parts["activations"])


def fmt_total(key: str, recompute: str) -> str:
    cfg = model(key)
    parts = training_memory_bytes(
        cfg, WORKED["micro_batch"], WORKED["seq_len"], recompute
    )
    verdict = "fits" if parts["total"] <= H200.memory_bytes else "does not fit"
    return f"{gb(parts['total'])}, which {verdict}"


# Problem 3: the longest sequence that fits one H200.
def longest_sequence(key: str, recompute: str, zero_stage: int = 0) -> int:
    """Largest seq_len (micro-batch 1) whose budget fits one H200; 0 if even
    one token does not. Bisection, since the budget grows with seq_len."""
    cfg = model(key)

    def fits(s: int) -> bool:
        parts = training_memory_bytes(cfg, 1, s, recompute, zero_stage, 1)
        return parts["total"] <= H200.memory_bytes

    if not fits(1):
        return 0
    lo, hi = 1, 2
    while fits(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def fmt_longest_sequence(key: str, recompute: str) -> str:
    return f"{longest_sequence(key, recompute):,} tokens"


# Problem 4: how many ranks ZeRO needs before the 70B model fits.
def min_ranks(key: str, zero_stage: int, recompute: str = "full") -> int | None:
    """Fewest data-parallel ranks whose per-GPU budget fits one H200, for
    the worked micro-batch; None when no number of ranks is enough (the
    unsharded part alone is too big)."""
    cfg = model(key)
    s, b = WORKED["seq_len"], WORKED["micro_batch"]
    many = training_memory_bytes(cfg, b, s, recompute, zero_stage, 10**9)
    if many["total"] > H200.memory_bytes:
        return None
    ranks = 1
    while True:
        parts = training_memory_bytes(cfg, b, s, recompute, zero_stage, ranks)
        if parts["total"] <= H200.memory_bytes:
            return ranks
        ranks += 1


def fmt_min_ranks(key: str, zero_stage: int) -> str:
    ranks = min_ranks(key, zero_stage)
    return "no number of GPUs" if ranks is None else f"{ranks} GPUs"


def fmt_unsharded(key: str, zero_stage: int) -> str:
    """What stays whole on every rank at a ZeRO stage (the floor)."""
    params = parameter_count(model(key))["total"]
    parts = model_state_bytes(params, zero_stage, 10**12)
    return f"{sum(parts.values()) / GB:,.4g} GB"


# Problem 5: the tiny language model trained in fp32, predicted and counted.
def tiny_run() -> dict:
    return json.loads(RUN_RECORD.read_text(encoding="utf-8"))


def tiny_state_bytes_predicted() -> float:
    """fp32 training keeps no separate master copy: weight 4, gradient 4,
    Adam m and v 4 each, so 16 bytes per parameter again."""
    return float(tiny_run()["parameters"] * (4 + 4 + 4 + 4))


def tiny_state_bytes_measured() -> float:
    """The run record's count of the same tensors, taken from the model."""
    counted = tiny_run()["memory_bytes"]
    return float(counted["weights"] + counted["gradients"] + counted["optimizer state"])


def state_table(key: str) -> str:
    """Markdown table: per-GPU model state at each ZeRO stage."""
    from evidence.tables import markdown_table

    params = parameter_count(model(key))["total"]
    ranks = WORKED["data_parallel"]
    rows = []
    for stage in range(4):
        parts = model_state_bytes(params, stage, ranks)
        rows.append(
            [
                f"ZeRO-{stage}" if stage else "plain data parallel",
                gb(parts["weights"]),
                gb(parts["gradients"]),
                gb(parts["optimizer"]),
                gb(sum(parts.values())),
            ]
        )
    header = ["stage", "weights", "gradients", "optimizer", "per GPU"]
    return markdown_table(header, rows, "lrrrr") + "\n"


def fmt_ranks() -> str:
    return str(WORKED["data_parallel"])


def fmt_seq() -> str:
    return f"{WORKED['seq_len']:,}"


def per_token_parts(key: str) -> dict[str, float]:
    """Bytes per token of sequence, micro-batch one, under full
    recomputation: the checkpoints of every layer, the one recomputed
    layer, and the logits with their gradient."""
    cfg = model(key)
    s = WORKED["seq_len"]
    working = working_set_bytes(cfg, 1, s, "full")
    checkpoints = cfg.layers * activation_bytes_per_layer(
        s, 1, cfg.hidden, cfg.heads, "full"
    )
    return {
        "checkpoints": checkpoints / s,
        "recomputed layer": working["recomputed layer"] / s,
        "logits": working["logits"] / s,
    }


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "bytes-per-parameter": fmt_bytes_per_parameter(),
        "longest-sequence.llama3-8b.full": fmt_longest_sequence("llama3-8b", "full"),
        "longest-sequence.llama3-8b.none": fmt_longest_sequence("llama3-8b", "none"),
        "longest-sequence.llama3-8b.selective": fmt_longest_sequence(
            "llama3-8b", "selective"
        ),
        "min-ranks.llama3-70b.0": fmt_min_ranks("llama3-70b", 0),
        "min-ranks.llama3-70b.1": fmt_min_ranks("llama3-70b", 1),
        "min-ranks.llama3-70b.2": fmt_min_ranks("llama3-70b", 2),
        "min-ranks.llama3-70b.3": fmt_min_ranks("llama3-70b", 3),
        "model-state.llama3-8b": fmt_model_state("llama3-8b"),
        "params.llama3-70b": fmt_params("llama3-70b"),
        "params.llama3-8b": fmt_params("llama3-8b"),
        "per-token-layer.llama3-8b.full": fmt_per_token_layer("llama3-8b", "full"),
        "per-token-layer.llama3-8b.none": fmt_per_token_layer("llama3-8b", "none"),
        "per-token-layer.llama3-8b.selective": fmt_per_token_layer(
            "llama3-8b", "selective"
        ),
        "ranks": fmt_ranks(),
        "seq": fmt_seq(),
        "state-headroom.llama3-8b": fmt_state_headroom("llama3-8b"),
        "total.llama3-8b.full": fmt_total("llama3-8b", "full"),
        "total.llama3-8b.none": fmt_total("llama3-8b", "none"),
        "total.llama3-8b.selective": fmt_total("llama3-8b", "selective"),
        "unsharded.llama3-70b.1": fmt_unsharded("llama3-70b", 1),
        "unsharded.llama3-70b.2": fmt_unsharded("llama3-70b", 2),
    }


def facts() -> dict[str, str]:
    """Every value the page states by name, formatted for prose; a page reads
    one as ``<!-- fact: snippets/lib/training_memory/worked.py:h200.memory -->``."""
    out = {
        **page_facts(),
        "h200.memory": gb(H200.memory_bytes),
        "h200.memory_mib": f"{H200.memory_bytes // 2**20:,} MiB",
        "bytes_per_parameter.fp32_gradients": f"{fp32_gradient_bytes()} bytes",
        "state.llama3-8b.fp32_gradients": (
            f"{model_state_gb('llama3-8b', FP32_GRADIENT_BYTES):.1f} GB"
        ),
        "headroom.llama3-8b.fp32_gradients": fmt_state_headroom(
            "llama3-8b", FP32_GRADIENT_BYTES
        ),
        "total.llama3-8b.full.fp32_gradients": fmt_fp32_gradient_total("llama3-8b"),
        "tiny.parameters": f"{tiny_run()['parameters']:,}",
        "tiny.predicted": f"{tiny_state_bytes_predicted():,.0f} bytes",
        "tiny.measured": f"{tiny_state_bytes_measured():,.0f} bytes",
        "logits.llama3-8b": gb(
            working_set_bytes(model("llama3-8b"), 1, WORKED["seq_len"], "full")[
                "logits"
            ]
        ),
        "gathered.llama3-70b": gb(
            working_set_bytes(model("llama3-70b"), 1, WORKED["seq_len"], "full", 3)[
                "gathered layers"
            ]
        ),
    }
    for part, value in per_token_parts("llama3-8b").items():
        out[f"per_token.llama3-8b.{part.replace(' ', '_')}"] = f"{value:,.0f} B"
    return out


def fmt_fp32_gradient_total(key: str) -> str:
    """The worked sequence under full recomputation with fp32 gradients."""
    cfg = model(key)
    parts = training_memory_bytes(
        cfg,
        WORKED["micro_batch"],
        WORKED["seq_len"],
        "full",
        gradient_bytes=FP32_GRADIENT_BYTES,
    )
    verdict = "fits" if parts["total"] <= H200.memory_bytes else "does not fit"
    return f"{gb(parts['total'])}, which {verdict}"


if __name__ == "__main__":
    # The lesson's givens; the exercises' answers stay in their folds.
    for key in MODELS:
        print(f"{key} parameters: {fmt_params(key)}")
    print(f"model state, mixed-precision Adam: {fmt_bytes_per_parameter()} a parameter")
    print(f"one H200: {facts()['h200.memory']} ({facts()['h200.memory_mib']})")
    print(f"worked sequence: {fmt_seq()} tokens; data-parallel ranks: {fmt_ranks()}")
    print(f"recomputation modes: {', '.join(RECOMPUTE)}")
