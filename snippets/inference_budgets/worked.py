"""The worked problems of the inference-budget lesson: every number the page
states is returned, as text, by a function here."""

import math

from kernels.devices import H200
from snippets.inference_budgets.budget import (
    GB,
    critical_batch,
    decode_flops_per_token,
    decode_step_seconds,
    kv_bytes_per_token,
    ridge_point,
    weight_intensity,
)
from snippets.lib.training_memory.budget import parameter_count
from snippets.lib.training_memory.worked import model

# The running example: sequences holding Llama-3's training length of cache,
# a prompt of this many tokens, and the batch sizes the page compares.
WORKED = {"context": 8192, "prompt": 2048, "batch": 64, "fp8": 1, "bf16": 2}


def params(key: str) -> int:
    return parameter_count(model(key))["total"]


def streamed_params(key: str) -> int:
    """The weights a decode step reads in full: all but the input embedding,
    whose lookup reads one row per sequence (the output head, a real
    GEMV over the same-sized matrix, is read every step)."""
    return params(key) - parameter_count(model(key))["embedding"]


def kv_per_token(key: str, mha: bool = False) -> float:
    """bf16 KV bytes per token; mha=True pretends every query head had its
    own KV head (no grouped-query attention)."""
    cfg = model(key)
    kv_heads = cfg.heads if mha else cfg.kv_heads
    return kv_bytes_per_token(cfg.layers, kv_heads, cfg.head_dim, WORKED["bf16"])


def kib(n_bytes: float) -> str:
    return f"{n_bytes / 1024:,.0f} KiB"


def gb(n_bytes: float) -> str:
    return f"{n_bytes / GB:,.3g} GB"


def fmt_kv(key: str, mha: bool = False) -> str:
    return kib(kv_per_token(key, mha))


def fmt_gqa_factor(key: str) -> str:
    cfg = model(key)
    return f"{cfg.heads // cfg.kv_heads}×"


def fmt_kv_sequence(key: str) -> str:
    """One worked-context sequence's cache."""
    return gb(kv_per_token(key) * WORKED["context"])


# Problem 2: how much cache fits beside the weights.
def weight_bytes(key: str, element: str = "bf16") -> float:
    return params(key) * WORKED[element]


def fmt_weights(key: str, element: str = "bf16") -> str:
    """Four figures: the 70B model's bf16 weights and the H200 differ in
    the fourth."""
    return f"{weight_bytes(key, element) / GB:,.4g} GB"


def cache_room(key: str, element: str = "bf16") -> float:
    return H200.memory_bytes - weight_bytes(key, element)


def tokens_that_fit(key: str, element: str = "bf16") -> int:
    room = cache_room(key, element)
    return max(0, math.floor(room / kv_per_token(key)))


def fmt_tokens_that_fit(key: str, element: str = "bf16") -> str:
    return f"{tokens_that_fit(key, element):,} tokens"


def fmt_sequences_that_fit(key: str, element: str = "bf16") -> str:
    return f"{tokens_that_fit(key, element) // WORKED['context']:,} sequences"


def fmt_room(key: str, element: str = "bf16") -> str:
    room = cache_room(key, element)
    return gb(room) if room >= 0 else f"minus {gb(-room)}"


# Problems 3 and 4: tokens-per-second ceilings.
def streamed_weight_bytes(key: str, element: str = "bf16") -> float:
    return streamed_params(key) * WORKED[element]


def step_seconds(key: str, batch: int, element: str = "bf16") -> float:
    cfg = model(key)
    context = WORKED["context"]
    flops = decode_flops_per_token(
        streamed_params(key), cfg.layers, cfg.heads, cfg.head_dim, context
    )
    kv = kv_per_token(key) * context
    return decode_step_seconds(streamed_weight_bytes(key, element), kv, batch, flops)


def fmt_ceiling(key: str, batch: int, element: str = "bf16") -> str:
    """Tokens per second, all sequences together."""
    return f"{batch / step_seconds(key, batch, element):,.0f} tokens/s"


def fmt_per_sequence(key: str, batch: int, element: str = "bf16") -> str:
    return f"{1 / step_seconds(key, batch, element):,.0f} tokens/s"


def fmt_step(key: str, batch: int, element: str = "bf16") -> str:
    return f"{step_seconds(key, batch, element) * 1e3:.3g} ms"


def fmt_batch(name: str = "batch") -> str:
    return f"{WORKED[name]:,}"


# Problem 5: prefill against decode, and when decode leaves the memory roof.
def fmt_intensity(tokens: int) -> str:
    return f"{weight_intensity(tokens, WORKED['bf16']):,.0f} FLOP/byte"


def fmt_ridge() -> str:
    return f"{ridge_point():.0f} FLOP/byte"


def critical(key: str, context: int) -> float:
    cfg = model(key)
    flops = decode_flops_per_token(
        streamed_params(key), cfg.layers, cfg.heads, cfg.head_dim, context
    )
    return critical_batch(
        streamed_weight_bytes(key), flops, kv_per_token(key) * context
    )


def fmt_critical(key: str, context: int) -> str:
    value = critical(key, context)
    return "never" if math.isinf(value) else f"{math.ceil(value):,} sequences"


def longest_compute_bound_context(key: str) -> int:
    """Largest cached context at which a big enough batch can still make a
    decode step compute-bound (critical batch finite)."""
    lo, hi = 0, 1
    while not math.isinf(critical(key, hi)):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if math.isinf(critical(key, mid)) else (mid, hi)
    return lo


def fmt_longest_context(key: str) -> str:
    return f"{longest_compute_bound_context(key):,} tokens"


def fmt_context() -> str:
    return f"{WORKED['context']:,}"


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "batch": fmt_batch(),
        "batch.prompt": fmt_batch("prompt"),
        "ceiling.llama3-70b.1.fp8": fmt_ceiling("llama3-70b", 1, "fp8"),
        "ceiling.llama3-8b.1": fmt_ceiling("llama3-8b", 1),
        "ceiling.llama3-8b.64": fmt_ceiling("llama3-8b", 64),
        "context": fmt_context(),
        "critical.llama3-8b.0": fmt_critical("llama3-8b", 0),
        "critical.llama3-8b.8192": fmt_critical("llama3-8b", 8192),
        "gqa-factor.llama3-70b": fmt_gqa_factor("llama3-70b"),
        "gqa-factor.llama3-8b": fmt_gqa_factor("llama3-8b"),
        "intensity.1": fmt_intensity(1),
        "intensity.2048": fmt_intensity(2048),
        "kv-sequence.llama3-70b": fmt_kv_sequence("llama3-70b"),
        "kv.llama3-70b": fmt_kv("llama3-70b"),
        "kv.llama3-70b.true": fmt_kv("llama3-70b", True),
        "kv.llama3-8b": fmt_kv("llama3-8b"),
        "kv.llama3-8b.true": fmt_kv("llama3-8b", True),
        "longest-context.llama3-8b": fmt_longest_context("llama3-8b"),
        "per-sequence.llama3-8b.64": fmt_per_sequence("llama3-8b", 64),
        "ridge": fmt_ridge(),
        "room.llama3-70b": fmt_room("llama3-70b"),
        "room.llama3-8b": fmt_room("llama3-8b"),
        "sequences-that-fit.llama3-70b": fmt_sequences_that_fit("llama3-70b"),
        "sequences-that-fit.llama3-70b.fp8": fmt_sequences_that_fit(
            "llama3-70b", "fp8"
        ),
        "sequences-that-fit.llama3-8b": fmt_sequences_that_fit("llama3-8b"),
        "step.llama3-8b.1": fmt_step("llama3-8b", 1),
        "tokens-that-fit.llama3-8b": fmt_tokens_that_fit("llama3-8b"),
        "weights.llama3-70b": fmt_weights("llama3-70b"),
        "weights.llama3-70b.fp8": fmt_weights("llama3-70b", "fp8"),
        "weights.llama3-8b": fmt_weights("llama3-8b"),
    }


def facts() -> dict[str, str]:
    """The device values the page states by name, formatted for prose; a page
    reads one as ``<!-- fact: snippets/inference_budgets/worked.py:h200.memory -->``."""
    return {
        **page_facts(),
        "h200.bandwidth": f"{H200.hbm_bytes_per_s / 1e12:g} TB/s",
        "h200.bf16": f"{H200.bf16_dense_flop_per_s / 1e12:,.1f} TFLOP/s",
        "h200.memory": gb(H200.memory_bytes),
        "h200.memory_mib": f"{H200.memory_bytes // 2**20:,} MiB",
        "h200.memory_gib": f"{H200.memory_bytes / 2**30:.1f} GiB",
        "embedding.llama3-8b": gb(
            parameter_count(model("llama3-8b"))["embedding"] * WORKED["bf16"]
        ),
        "streamed.llama3-8b": gb(streamed_weight_bytes("llama3-8b")),
    }


if __name__ == "__main__":
    # The lesson's givens and its worked example; the exercises' answers stay
    # in their folds on the page.
    m8 = "llama3-8b"
    h200 = facts()
    print(f"H200 bandwidth: {h200['h200.bandwidth']}, dense bf16: {h200['h200.bf16']}")
    print(f"ridge point (no cache): {fmt_ridge()}")
    print(f"Llama-3 8B KV heads: {fmt_gqa_factor(m8)} fewer than query heads")
    without = fmt_kv(m8, True)
    print(f"Llama-3 8B KV cache per token: {fmt_kv(m8)} ({without} without GQA)")
