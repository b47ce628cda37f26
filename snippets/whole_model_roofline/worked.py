"""The worked problems of the whole-model roofline lesson: every number the
page states is returned, as text, by a function here."""

from evidence.tables import markdown_table
from kernels.devices import H200
from snippets.lib.training_memory.worked import model
from snippets.whole_model_roofline.flops import (
    attention_flops_per_token,
    layer_ops,
    matmul,
    matmul_params,
    mfu,
    training_flops_per_token,
)

# Givens of the problems. The throughput is a hypothetical run's report,
# not a measurement; the token count is Llama 3's pre-training corpus.
WORKED = {
    "seq_len": 8192,
    "tokens_per_s_per_gpu": {"llama3-8b": 6000.0, "llama3-70b": 800.0},
    "corpus_tokens": 15e12,
    "gpus": 1024,
    "target_mfu": 0.40,
    "prompt": 2048,
    "context": 8192,
    "batch": 1,
}


def given_text(name: str, key: str = "") -> str:
    value = WORKED[name][key] if key else WORKED[name]
    if name == "corpus_tokens":
        return f"{value / 1e12:g} trillion"
    if name == "target_mfu":
        return f"{value:.0%}"
    return f"{value:,.0f}"


def gflop(value: float) -> str:
    return f"{value / 1e9:,.1f} GFLOP"


def six_n_text(key: str) -> str:
    return gflop(6 * matmul_params(model(key)))


def attention_term_text(key: str) -> str:
    """The training attention term, 12*L*H*Q*T, at the worked length."""
    return gflop(3 * attention_flops_per_token(model(key), WORKED["seq_len"]))


def training_text(key: str) -> str:
    return gflop(training_flops_per_token(model(key), WORKED["seq_len"]))


def attention_share(key: str) -> float:
    cfg = model(key)
    total = training_flops_per_token(cfg, WORKED["seq_len"])
    return 3 * attention_flops_per_token(cfg, WORKED["seq_len"]) / total


def attention_share_text(key: str) -> str:
    return f"{attention_share(key):.0%}"


def mfu_value(key: str, with_attention: bool = True) -> float:
    cfg = model(key)
    flops = (
        training_flops_per_token(cfg, WORKED["seq_len"])
        if with_attention
        else 6 * matmul_params(cfg)
    )
    return mfu(WORKED["tokens_per_s_per_gpu"][key], flops)


def mfu_text(key: str, with_attention: bool = True) -> str:
    return f"{mfu_value(key, with_attention):.1%}"


def training_days(key: str) -> float:
    """Days to train on the corpus with WORKED gpus at the target MFU."""
    cfg = model(key)
    flops = WORKED["corpus_tokens"] * training_flops_per_token(cfg, WORKED["seq_len"])
    rate = WORKED["gpus"] * WORKED["target_mfu"] * H200.bf16_dense_flop_per_s
    return flops / rate / 86400


def training_days_text(key: str) -> str:
    return f"{training_days(key):,.0f} days"


def ops(key: str, phase: str):
    if phase == "decode":
        return layer_ops(model(key), "decode", WORKED["batch"], WORKED["context"])
    return layer_ops(model(key), "prefill", WORKED["prompt"])


def layer_table(key: str, phase: str) -> str:
    """Per-op FLOPs, bytes, intensity, bound and share of the layer's
    roofline time on the H200."""
    items = ops(key, phase)
    total = sum(op.seconds() for op in items)
    rows = [
        [
            op.name,
            f"{op.flops / 1e6:,.0f}",
            f"{op.bytes / 1e6:,.1f}",
            f"{op.intensity:,.1f}",
            op.bound(),
            f"{op.seconds() / total:.0%}",
        ]
        for op in items
    ]
    header = ["op", "MFLOP", "MB moved", "FLOP/byte", "bound", "share of time"]
    return markdown_table(header, rows, "lrrrlr") + "\n"


def layer_time_text(key: str, phase: str) -> str:
    return duration_text(sum(op.seconds() for op in ops(key, phase)))


def biggest_op_text(key: str, phase: str) -> str:
    items = ops(key, phase)
    top = max(items, key=lambda op: op.seconds())
    share = top.seconds() / sum(op.seconds() for op in items)
    return f"{top.name} ({share:.0%})"


def per_token_time_text(key: str, phase: str) -> str:
    """Whole model, per generated or prompt token (layers only)."""
    cfg = model(key)
    items = ops(key, phase)
    tokens = WORKED["batch"] if phase == "decode" else WORKED["prompt"]
    seconds = cfg.layers * sum(op.seconds() for op in items) / tokens
    return duration_text(seconds)


# --8<-- [start:head]
def head_op(key: str, phase: str):
    """The output head: every token's hidden state times the vocabulary
    matrix, a GEMV in decode. The input embedding is a lookup and is not
    an operation here."""
    cfg = model(key)
    tokens = WORKED["batch"] if phase == "decode" else WORKED["prompt"]
    return matmul("LM head", tokens, cfg.hidden, cfg.vocab, 2)
    # --8<-- [end:head]


def model_step_seconds(key: str) -> float:
    """A whole decode step: every layer, then the LM head."""
    cfg = model(key)
    layers = cfg.layers * sum(op.seconds() for op in ops(key, "decode"))
    return layers + head_op(key, "decode").seconds()


def causal_prefill_attention(key: str) -> tuple[float, float]:
    """Prefill attention's FLOPs with the causal mask's discount (only the
    scores on and below the diagonal), and its share of the layer's time
    once discounted."""
    items = ops(key, "prefill")
    T = WORKED["prompt"]
    attention = next(op for op in items if op.name == "attention")
    discounted = attention.flops * (T + 1) / (2 * T)
    others = sum(op.seconds() for op in items if op is not attention)
    seconds = max(
        discounted / H200.bf16_dense_flop_per_s, attention.bytes / H200.hbm_bytes_per_s
    )
    return discounted, seconds / (others + seconds)


def facts() -> dict[str, str]:
    """Values the page states by name, formatted for prose; a page reads one
    as ``<!-- fact: <this file>:decode.model_step -->``."""
    cfg = model("llama3-8b")
    items = {op.name: op for op in ops("llama3-8b", "prefill")}
    discounted, share = causal_prefill_attention("llama3-8b")
    kv_width = cfg.kv_heads * cfg.head_dim
    return {
        "decode.head": duration_text(head_op("llama3-8b", "decode").seconds()),
        "decode.model_step": duration_text(model_step_seconds("llama3-8b")),
        "prefill.attention": gflop(items["attention"].flops),
        "prefill.attention_causal": gflop(discounted),
        "prefill.attention_causal_share": f"{share:.1%}",
        # Attention equals the output projection: in prefill when the prompt
        # is h / 2 tokens (4*T*T*h FLOPs against 2*T*h*h), in decode when the
        # cache is h*h / (2 * kv_width) tokens (its K and V bytes against
        # the h x h weight's).
        "coincidence.prompt": f"{cfg.hidden // 2:,}",
        "coincidence.context": f"{cfg.hidden**2 // (2 * kv_width):,}",
        "hidden": f"{cfg.hidden:,}",
    }


def duration_text(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:,.3g} ms"
    return f"{seconds * 1e6:,.3g} µs"


if __name__ == "__main__":
    # The lesson's givens only; what the exercises compute from them stays in
    # their folds on the page.
    print(f"training sequence length: {given_text('seq_len')} tokens")
    print(f"prefill prompt: {given_text('prompt')} tokens")
    print(f"decode: batch {given_text('batch')}, {given_text('context')} cached tokens")
    print(f"pre-training corpus: {given_text('corpus_tokens')} tokens")
    print(f"cluster: {given_text('gpus')} GPUs at {given_text('target_mfu')} MFU")
