"""The worked problems of the whole-model roofline lesson: every number the
page states comes from facts() here, formatted by the fmt_* functions."""

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


def fmt_given(name: str, key: str = "") -> str:
    value = WORKED[name][key] if key else WORKED[name]
    if name == "corpus_tokens":
        return f"{value / 1e12:g} trillion"
    if name == "target_mfu":
        return f"{value:.0%}"
    return f"{value:,.0f}"


def gflop(value: float) -> str:
    return f"{value / 1e9:,.1f} GFLOP"


def fmt_six_n(key: str) -> str:
    return gflop(6 * matmul_params(model(key)))


def fmt_attention_term(key: str) -> str:
    """The training attention term, 12*L*H*Q*T, at the worked length."""
    return gflop(3 * attention_flops_per_token(model(key), WORKED["seq_len"]))


def fmt_training(key: str) -> str:
    return gflop(training_flops_per_token(model(key), WORKED["seq_len"]))


def attention_share(key: str) -> float:
    cfg = model(key)
    total = training_flops_per_token(cfg, WORKED["seq_len"])
    return 3 * attention_flops_per_token(cfg, WORKED["seq_len"]) / total


def fmt_attention_share(key: str) -> str:
    return f"{attention_share(key):.0%}"


def mfu_value(key: str, with_attention: bool = True) -> float:
    cfg = model(key)
    flops = (
        training_flops_per_token(cfg, WORKED["seq_len"])
        if with_attention
        else 6 * matmul_params(cfg)
    )
    return mfu(WORKED["tokens_per_s_per_gpu"][key], flops)


def fmt_mfu(key: str, with_attention: bool = True) -> str:
    return f"{mfu_value(key, with_attention):.1%}"


def training_days(key: str) -> float:
    """Days to train on the corpus with WORKED gpus at the target MFU."""
    cfg = model(key)
    flops = WORKED["corpus_tokens"] * training_flops_per_token(cfg, WORKED["seq_len"])
    rate = WORKED["gpus"] * WORKED["target_mfu"] * H200.bf16_dense_flop_per_s
    return flops / rate / 86400


def fmt_training_days(key: str) -> str:
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


def fmt_layer_time(key: str, phase: str) -> str:
    return fmt_duration(sum(op.seconds() for op in ops(key, phase)))


def fmt_biggest_op(key: str, phase: str) -> str:
    items = ops(key, phase)
    top = max(items, key=lambda op: op.seconds())
    share = top.seconds() / sum(op.seconds() for op in items)
    return f"{top.name} ({share:.0%})"


def fmt_per_token_time(key: str, phase: str) -> str:
    """Whole model, per generated or prompt token (layers only)."""
    cfg = model(key)
    items = ops(key, phase)
    tokens = WORKED["batch"] if phase == "decode" else WORKED["prompt"]
    seconds = cfg.layers * sum(op.seconds() for op in items) / tokens
    return fmt_duration(seconds)


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


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "attention-share.llama3-70b": fmt_attention_share("llama3-70b"),
        "attention-share.llama3-8b": fmt_attention_share("llama3-8b"),
        "attention-term.llama3-70b": fmt_attention_term("llama3-70b"),
        "attention-term.llama3-8b": fmt_attention_term("llama3-8b"),
        "biggest-op.llama3-8b.decode": fmt_biggest_op("llama3-8b", "decode"),
        "given.context": fmt_given("context"),
        "given.corpus_tokens": fmt_given("corpus_tokens"),
        "given.gpus": fmt_given("gpus"),
        "given.prompt": fmt_given("prompt"),
        "given.seq_len": fmt_given("seq_len"),
        "given.target_mfu": fmt_given("target_mfu"),
        "given.tokens_per_s_per_gpu.llama3-70b": fmt_given(
            "tokens_per_s_per_gpu", "llama3-70b"
        ),
        "given.tokens_per_s_per_gpu.llama3-8b": fmt_given(
            "tokens_per_s_per_gpu", "llama3-8b"
        ),
        "layer-time.llama3-8b.decode": fmt_layer_time("llama3-8b", "decode"),
        "mfu.llama3-70b": fmt_mfu("llama3-70b"),
        "mfu.llama3-70b.false": fmt_mfu("llama3-70b", False),
        "mfu.llama3-8b": fmt_mfu("llama3-8b"),
        "mfu.llama3-8b.false": fmt_mfu("llama3-8b", False),
        "per-token-time.llama3-8b.decode": fmt_per_token_time("llama3-8b", "decode"),
        "per-token-time.llama3-8b.prefill": fmt_per_token_time("llama3-8b", "prefill"),
        "six-n.llama3-70b": fmt_six_n("llama3-70b"),
        "six-n.llama3-8b": fmt_six_n("llama3-8b"),
        "training-days.llama3-70b": fmt_training_days("llama3-70b"),
        "training-days.llama3-8b": fmt_training_days("llama3-8b"),
        "training.llama3-8b": fmt_training("llama3-8b"),
    }


def facts() -> dict[str, str]:
    """Values the page states by name, formatted for prose; a page reads one
    as ``<!-- fact: <this file>:decode.model_step -->``."""
    cfg = model("llama3-8b")
    items = {op.name: op for op in ops("llama3-8b", "prefill")}
    discounted, share = causal_prefill_attention("llama3-8b")
    kv_width = cfg.kv_heads * cfg.head_dim
    return {
        **page_facts(),
        "decode.head": fmt_duration(head_op("llama3-8b", "decode").seconds()),
        "decode.model_step": fmt_duration(model_step_seconds("llama3-8b")),
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


def fmt_duration(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:,.3g} ms"
    return f"{seconds * 1e6:,.3g} µs"


if __name__ == "__main__":
    # The lesson's givens only; what the exercises compute from them stays in
    # their folds on the page.
    print(f"training sequence length: {fmt_given('seq_len')} tokens")
    print(f"prefill prompt: {fmt_given('prompt')} tokens")
    print(f"decode: batch {fmt_given('batch')}, {fmt_given('context')} cached tokens")
    print(f"pre-training corpus: {fmt_given('corpus_tokens')} tokens")
    print(f"cluster: {fmt_given('gpus')} GPUs at {fmt_given('target_mfu')} MFU")
