"""Inference budgets (lesson: Bandwidth and compute budgets for inference).

Standard library only (plus kernels.devices), so the page's in-browser
calculators run this same code. Sizes in bytes; GB means 10**9 bytes.
"""

import math

from kernels.devices import H200

GB = 10**9


def check_positive(name: str, value: float) -> None:
    """Reject a zero or negative size or count, naming the argument."""
    if isinstance(value, bool) or not value > 0:
        raise ValueError(f"{name} must be positive, got {value!r}")


def check_not_negative(name: str, value: float) -> None:
    if isinstance(value, bool) or not value >= 0:
        raise ValueError(f"{name} must not be negative, got {value!r}")


# --8<-- [start:kv-per-token]
def kv_bytes_per_token(
    layers: int, kv_heads: int, head_dim: int, element_bytes: float = 2
) -> float:
    """KV-cache bytes one token adds: every layer stores a key and a value
    vector (the 2) for each KV head. Grouped-query attention shrinks
    kv_heads below the query heads, and the cache with it."""
    for name, value in (
        ("layers", layers),
        ("kv_heads", kv_heads),
        ("head_dim", head_dim),
        ("element_bytes", element_bytes),
    ):
        check_positive(name, value)
    return layers * kv_heads * head_dim * 2 * element_bytes


# --8<-- [end:kv-per-token]


# --8<-- [start:kv-calculator]
def kv_cache(
    layers: int = 32,
    kv_heads: int = 8,
    head_dim: int = 128,
    context: int = 8192,
    batch: int = 1,
    element_bytes: float = 2,
) -> str:
    """KV-cache size for `batch` sequences of `context` tokens (defaults:
    Llama-3 8B in bf16), and its share of one H200's memory."""
    check_positive("context", context)
    check_positive("batch", batch)
    per_token = kv_bytes_per_token(layers, kv_heads, head_dim, element_bytes)
    total = per_token * context * batch
    share = total / H200.memory_bytes
    return (
        f"{per_token / 1024:,.0f} KiB per token; {total / GB:,.3g} GB for "
        f"{batch} x {context} tokens ({share:.0%} of one H200)"
    )


# --8<-- [end:kv-calculator]


# --8<-- [start:decode-flops]
def decode_flops_per_token(
    params: float, layers: int, heads: int, head_dim: int, context: int
) -> float:
    """FLOPs to generate one token: 2 per weight (multiply, add) plus the
    attention over `context` cached tokens, 2 for q.k and 2 for the
    weighted sum of v, per head dimension, head and layer."""
    check_positive("params", params)
    check_not_negative("context", context)
    return 2 * params + 4 * layers * heads * head_dim * context


# --8<-- [end:decode-flops]


# --8<-- [start:decode-step]
def decode_step_seconds(
    weight_bytes: float,
    kv_bytes_per_seq: float,
    batch: int,
    flops_per_token: float,
    bytes_per_s: float = H200.hbm_bytes_per_s,
    flop_per_s: float = H200.bf16_dense_flop_per_s,
) -> float:
    """Lower bound on one decode step: every weight and every sequence's KV
    cache cross HBM once, and every token's matmul work runs at peak.
    Whichever takes longer sets the step (the roofline, per step)."""
    check_positive("weight_bytes", weight_bytes)
    check_not_negative("kv_bytes_per_seq", kv_bytes_per_seq)
    check_positive("batch", batch)
    check_positive("flops_per_token", flops_per_token)
    memory_time = (weight_bytes + batch * kv_bytes_per_seq) / bytes_per_s
    compute_time = batch * flops_per_token / flop_per_s
    return max(memory_time, compute_time)


# --8<-- [end:decode-step]


# --8<-- [start:decode-calculator]
def decode_ceiling(
    params_billion: float = 8.03,
    embedding_billion: float = 0.525,
    weight_bytes_per_param: float = 2,
    batch: int = 1,
    context: int = 8192,
    layers: int = 32,
    heads: int = 32,
    kv_heads: int = 8,
    head_dim: int = 128,
    kv_element_bytes: float = 2,
) -> str:
    """Tokens per second one H200 cannot beat when decoding `batch`
    sequences that each hold `context` tokens of KV cache. The input
    embedding (`embedding_billion`, vocabulary x hidden) is held but not
    streamed: a step looks up one row of it per sequence."""
    check_positive("params_billion", params_billion)
    check_not_negative("embedding_billion", embedding_billion)
    if embedding_billion >= params_billion:
        raise ValueError(
            f"embedding_billion {embedding_billion} must be less than "
            f"params_billion {params_billion}"
        )
    check_positive("weight_bytes_per_param", weight_bytes_per_param)
    check_not_negative("context", context)
    check_positive("heads", heads)
    if heads % kv_heads:
        raise ValueError(f"kv_heads {kv_heads} must divide heads {heads}")
    streamed = (params_billion - embedding_billion) * 1e9
    kv = context * kv_bytes_per_token(layers, kv_heads, head_dim, kv_element_bytes)
    flops = decode_flops_per_token(streamed, layers, heads, head_dim, context)
    step = decode_step_seconds(streamed * weight_bytes_per_param, kv, batch, flops)
    held = params_billion * 1e9 * weight_bytes_per_param + batch * kv
    fits = "fits" if held <= H200.memory_bytes else "does NOT fit"
    return (
        f"{batch / step:,.0f} tokens/s in all, {1 / step:,.1f} per sequence "
        f"(step >= {step * 1e3:.3g} ms); weights + KV = {held / GB:,.3g} GB, "
        f"{fits} in one H200"
    )


# --8<-- [end:decode-calculator]


# --8<-- [start:critical-batch]
def critical_batch(
    weight_bytes: float,
    flops_per_token: float,
    kv_bytes_per_seq: float = 0.0,
    bytes_per_s: float = H200.hbm_bytes_per_s,
    flop_per_s: float = H200.bf16_dense_flop_per_s,
) -> float:
    """Batch at which a decode step's compute time catches up with its
    memory time. Solve B*F/P = (W + B*kv)/BW for B; math.inf when each
    sequence's KV reads take longer than its compute (never compute-bound)."""
    check_positive("weight_bytes", weight_bytes)
    check_positive("flops_per_token", flops_per_token)
    check_not_negative("kv_bytes_per_seq", kv_bytes_per_seq)
    weights = weight_bytes
    gain_per_seq = flops_per_token / flop_per_s - kv_bytes_per_seq / bytes_per_s
    if gain_per_seq <= 0:
        return math.inf
    return (weights / bytes_per_s) / gain_per_seq


# --8<-- [end:critical-batch]


# --8<-- [start:intensity]
def weight_intensity(tokens: int, weight_bytes_per_param: float = 2) -> float:
    """FLOPs per byte of weights for one pass over `tokens` tokens: each
    weight does 2 FLOPs (a multiply and an add) per token and is read once.
    Prefill has the prompt's tokens; a decode step has one per sequence."""
    check_positive("tokens", tokens)
    check_positive("weight_bytes_per_param", weight_bytes_per_param)
    return 2 * tokens / weight_bytes_per_param


# --8<-- [end:intensity]


def ridge_point() -> float:
    """The H200's bf16 ridge: FLOPs it can do per byte it can move."""
    return H200.bf16_dense_flop_per_s / H200.hbm_bytes_per_s


if __name__ == "__main__":
    print(kv_cache())
    print(kv_cache(kv_heads=32))
    print(decode_ceiling())
    print(decode_ceiling(batch=64))
    print(f"ridge {ridge_point():.0f} FLOP/B")
    print(f"critical batch, weights only: {critical_batch(16.06e9, 16.06e9):.0f}")
