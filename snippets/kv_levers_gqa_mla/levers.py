"""GQA, MQA and MLA as levers on KV bytes per token
(docs/inference/kv-levers-gqa-mla.md).

Standard library only. Bytes of keys and values one token leaves in the
cache under each attention design, for one model shape (the batching
lesson's 8B example: 32 layers, 32 query heads of width 128), and what that
does to the sequences an H200 holds and to a decode step's bytes.
"""

from kernels.devices import H200
from snippets.lib.batching import MODEL

HEADS, HEAD_DIM, LAYERS = 32, MODEL["head_dim"], MODEL["layers"]
#: MLA as DeepSeek-V2 sets it (from memory of the paper, to check against
#: it): a compressed latent of 4 head widths and a decoupled RoPE key of half
#: a head width per layer, cached instead of per-head keys and values.
MLA_LATENT, MLA_ROPE = 4 * HEAD_DIM, HEAD_DIM // 2


# --8<-- [start:bytes]
def kv_values_per_token(design: str) -> int:
    """Cached numbers per token per layer under each attention design."""
    if design == "MHA":  # a key and a value for every query head
        return 2 * HEADS * HEAD_DIM
    if design.startswith("GQA-"):  # groups of query heads share one
        return 2 * int(design[4:]) * HEAD_DIM
    if design == "MQA":  # one key and value head for all
        return 2 * HEAD_DIM
    if design == "MLA":  # one latent (keys and values are projected from it)
        return MLA_LATENT + MLA_ROPE
    raise ValueError(f"design must be MHA, GQA-<groups>, MQA or MLA, got {design!r}")


def kv_bytes_per_token(design: str, itemsize: int = 2) -> int:
    return LAYERS * kv_values_per_token(design) * itemsize


# --8<-- [end:bytes]

DESIGNS = ("MHA", "GQA-8", "MQA", "MLA")


def sequences_that_fit(design: str, tokens: int, itemsize: int = 2) -> int:
    """Sequences of `tokens` whose caches fit in the H200's memory left
    after the example model's bf16 weights (activations ignored)."""
    free = H200.memory_bytes - MODEL["params"] * MODEL["bytes_per_param"]
    return int(free // (kv_bytes_per_token(design, itemsize) * tokens))


def table(tokens: int = 4096, batch: int = 64) -> str:
    weights = MODEL["params"] * MODEL["bytes_per_param"]
    lines = [
        f"| design | KV per token | sequences of {tokens:,} that fit "
        f"| KV share of a batch-{batch} decode step |",
        "| --- | ---: | ---: | ---: |",
    ]
    for d in DESIGNS:
        kv = kv_bytes_per_token(d)
        step_kv = batch * kv * tokens
        lines.append(
            f"| {d} | {kv / 2**10:,.0f} KiB | {sequences_that_fit(d, tokens):,} "
            f"| {step_kv / (step_kv + weights):.0%} |"
        )
    return "\n".join(lines)


EX1 = dict(layers=80, kv_heads=8, heads=64, head_dim=128)
EX2_TOKENS = 8192


def facts() -> dict[str, str]:
    e = EX1
    gqa = 2 * e["layers"] * e["kv_heads"] * e["head_dim"] * 2
    mha = 2 * e["layers"] * e["heads"] * e["head_dim"] * 2
    return {
        "memory": f"{H200.memory_bytes // 2**20:,} MiB",
        "mla_ratio": f"{kv_bytes_per_token('MHA') / kv_bytes_per_token('MLA'):.1f}",
        "gqa_ratio": f"{kv_bytes_per_token('MHA') / kv_bytes_per_token('GQA-8'):.0f}",
        "ex1_q": (
            f"{e['layers']} layers, {e['heads']} query heads and {e['kv_heads']} "
            f"key/value heads of width {e['head_dim']}, bf16"
        ),
        "ex1_a": (
            f"{gqa / 2**10:,.0f} KiB per token with GQA, {mha / 2**20:.1f} MiB if "
            f"every query head kept its own ({mha // gqa}× more)"
        ),
        "ex2_q": f"{EX2_TOKENS:,}",
        "ex2_a": (
            f"{sequences_that_fit('GQA-8', EX2_TOKENS):,} sequences with bf16 GQA-8, "
            f"{sequences_that_fit('GQA-8', EX2_TOKENS, 1):,} with an 8-bit cache, "
            f"{sequences_that_fit('MLA', EX2_TOKENS):,} with bf16 MLA"
        ),
    }


if __name__ == "__main__":
    for d in DESIGNS:
        print(f"{d:6}: {kv_values_per_token(d):5} values per token per layer")
