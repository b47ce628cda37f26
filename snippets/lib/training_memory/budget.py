"""Training memory budgets (lesson: Memory budgets for training).

Standard library only (plus kernels.devices), so the page's in-browser
calculator runs this same code. Sizes are bytes; GB means 10**9 bytes. The
H200's capacity is the 143,771 MiB the device reports (kernels/devices.py),
about 150.8 GB: its datasheet's "141 GB" is not a decimal figure.
"""

from dataclasses import dataclass

from kernels.devices import H200

GB = 10**9


def check_positive(name: str, value: float) -> None:
    """Reject a zero or negative size or count, naming the argument."""
    if isinstance(value, bool) or not value > 0:
        raise ValueError(f"{name} must be positive, got {value!r}")


# --8<-- [start:config]
@dataclass(frozen=True)
class ModelConfig:
    """The sizes of a decoder-only transformer, named as in a Hugging Face
    config.json (Llama architecture: gated MLP, grouped-query attention)."""

    name: str
    layers: int  # num_hidden_layers
    hidden: int  # hidden_size
    heads: int  # num_attention_heads
    kv_heads: int  # num_key_value_heads
    intermediate: int  # intermediate_size
    vocab: int  # vocab_size

    def __post_init__(self):
        for field in ("layers", "hidden", "heads", "kv_heads", "intermediate"):
            check_positive(field, getattr(self, field))
        check_positive("vocab", self.vocab)
        if self.hidden % self.heads:
            raise ValueError(f"heads {self.heads} must divide hidden {self.hidden}")
        if self.heads % self.kv_heads:
            raise ValueError(f"kv_heads {self.kv_heads} must divide heads {self.heads}")

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


LLAMA3_8B = ModelConfig("Llama-3 8B", 32, 4096, 32, 8, 14336, 128256)
LLAMA3_70B = ModelConfig("Llama-3 70B", 80, 8192, 64, 8, 28672, 128256)
# --8<-- [end:config]

MODELS = {"llama3-8b": LLAMA3_8B, "llama3-70b": LLAMA3_70B}


# --8<-- [start:parameters]
def parameter_count(cfg: ModelConfig) -> dict[str, int]:
    """Weights by kind. Untied input embedding and output head; no biases;
    two RMSNorm weight vectors per layer and one at the end."""
    h, kv_width = cfg.hidden, cfg.kv_heads * cfg.head_dim
    attention = h * h + 2 * h * kv_width + h * h  # q, k, v, o projections
    mlp = 3 * h * cfg.intermediate  # gate, up, down
    parts = {
        "embedding": cfg.vocab * h,
        "attention": cfg.layers * attention,
        "mlp": cfg.layers * mlp,
        "norms": (2 * cfg.layers + 1) * h,
        "head": cfg.vocab * h,
    }
    parts["total"] = sum(parts.values())
    return parts


# --8<-- [end:parameters]


# --8<-- [start:bytes-per-parameter]
# Mixed-precision training with Adam: what each weight costs, in bytes, in
# the ZeRO paper's recipe (16-bit weights and 16-bit gradients).
BYTES_PER_PARAMETER = {
    "bf16 weight": 2,  # what the forward and backward passes read
    "bf16 gradient": 2,  # written by the backward pass
    "fp32 master weight": 4,  # the copy the optimizer updates
    "fp32 Adam mean (m)": 4,
    "fp32 Adam variance (v)": 4,
}
# bf16 training as Megatron-LM (main_grad) and PyTorch FSDP run it keeps the
# gradients in fp32 instead, accumulated and reduced at full precision.
FP32_GRADIENT_BYTES = 4
# --8<-- [end:bytes-per-parameter]

RECOMPUTE = ("none", "selective", "full")


# --8<-- [start:zero]
def model_state_bytes(
    params: int, zero_stage: int = 0, data_parallel: int = 1, gradient_bytes: int = 2
) -> dict[str, float]:
    """Bytes one data-parallel rank holds for weights, gradients and
    optimizer state (fp32 master, m and v) under ZeRO stage 0-3.

    Stage 1 shards the optimizer state over the ranks, stage 2 also the
    gradients, stage 3 also the weights. gradient_bytes: 2 for 16-bit
    gradients (the ZeRO paper), 4 for fp32 gradients (Megatron-LM's bf16)."""
    check_positive("params", params)
    check_positive("data_parallel", data_parallel)
    check_gradient_bytes(gradient_bytes)
    if zero_stage not in (0, 1, 2, 3):
        raise ValueError(f"zero_stage must be 0, 1, 2 or 3, got {zero_stage!r}")
    b = BYTES_PER_PARAMETER
    optimizer = b["fp32 master weight"] + b["fp32 Adam mean (m)"]
    optimizer += b["fp32 Adam variance (v)"]

    def share(stage_that_shards: int) -> float:
        return data_parallel if zero_stage >= stage_that_shards else 1

    return {
        "weights": params * b["bf16 weight"] / share(3),
        "gradients": params * gradient_bytes / share(2),
        "optimizer": params * optimizer / share(1),
    }


# --8<-- [end:zero]


def check_gradient_bytes(gradient_bytes: int) -> None:
    if gradient_bytes not in (2, 4):
        raise ValueError(
            f"gradient_bytes must be 2 (bf16) or 4 (fp32), got {gradient_bytes!r}"
        )


# --8<-- [start:activations]
def activation_bytes_per_layer(
    seq_len: int, micro_batch: int, hidden: int, heads: int, recompute: str
) -> int:
    """Bytes one layer keeps for the backward pass (Korthikanti et al.,
    16-bit activations, no tensor parallelism, no attention dropout):

    none:      s*b*h*(34 + 2*a*s/h)  everything, the softmax output included
    selective: s*b*h*34              scores recomputed (or never stored)
    full:      s*b*h*2               only the layer's input; rerun forward

    Korthikanti's score term is 5*a*s^2*b: the softmax output (2 bytes), a
    dropout mask (1) and the dropout's output (2). Llama-3 trains with
    attention_dropout = 0, so only the softmax output's 2 remain.
    """
    for name, value in (
        ("seq_len", seq_len),
        ("micro_batch", micro_batch),
        ("hidden", hidden),
        ("heads", heads),
    ):
        check_positive(name, value)
    if recompute not in RECOMPUTE:
        raise ValueError(f"recompute must be one of {RECOMPUTE}, got {recompute!r}")
    sbh = seq_len * micro_batch * hidden
    if recompute == "full":
        return 2 * sbh
    scores = 2 * heads * seq_len * seq_len * micro_batch  # sbh * 2as/h
    return 34 * sbh + (scores if recompute == "none" else 0)


# --8<-- [end:activations]


# --8<-- [start:working-set]
def working_set_bytes(
    cfg: ModelConfig,
    micro_batch: int,
    seq_len: int,
    recompute: str,
    zero_stage: int = 0,
    gradient_bytes: int = 2,
) -> dict[str, float]:
    """What the backward pass holds at its peak beyond the saved activations.

    recomputed layer: full recomputation reruns one layer's forward and holds
        its activations (34*s*b*h with a fused attention kernel such as
        FlashAttention; without one, also the s x s scores).
    logits: s*b*vocab in fp32, as the loss upcasts them, plus their fp32
        gradient: 8 bytes per token and vocabulary entry.
    gathered layers (ZeRO-3 only): the current layer's bf16 weights, the
        next layer's being prefetched, and the current layer's unsharded
        gradient before it is reduced and sharded.
    """
    check_gradient_bytes(gradient_bytes)
    recomputed = 0
    if recompute == "full":
        recomputed = activation_bytes_per_layer(
            seq_len, micro_batch, cfg.hidden, cfg.heads, "selective"
        )
    logits = 8 * seq_len * micro_batch * cfg.vocab
    gathered = 0.0
    if zero_stage == 3:
        layer = parameter_count(cfg)
        layer_params = (layer["attention"] + layer["mlp"]) / cfg.layers
        gathered = layer_params * (2 * 2 + gradient_bytes)
    return {
        "recomputed layer": recomputed,
        "logits": logits,
        "gathered layers": gathered,
    }


# --8<-- [end:working-set]


# --8<-- [start:total]
def training_memory_bytes(
    cfg: ModelConfig,
    micro_batch: int,
    seq_len: int,
    recompute: str = "selective",
    zero_stage: int = 0,
    data_parallel: int = 1,
    gradient_bytes: int = 2,
) -> dict[str, float]:
    """Per-GPU bytes: model state (ZeRO-sharded), every layer's saved
    activations for one micro-batch, and the backward pass's working set.
    Ignores the CUDA context, communication buffers and fragmentation, so a
    real run needs some headroom above this."""
    params = parameter_count(cfg)["total"]
    parts = model_state_bytes(params, zero_stage, data_parallel, gradient_bytes)
    per_layer = activation_bytes_per_layer(
        seq_len, micro_batch, cfg.hidden, cfg.heads, recompute
    )
    parts["activations"] = cfg.layers * per_layer
    working = working_set_bytes(
        cfg, micro_batch, seq_len, recompute, zero_stage, gradient_bytes
    )
    parts["working set"] = sum(working.values())
    parts["total"] = sum(parts.values())
    return parts


# --8<-- [end:total]


def gb(n_bytes: float) -> str:
    """Bytes as GB (10**9) with three significant figures."""
    value = n_bytes / GB
    return f"{value:.3g} GB" if value < 1000 else f"{value:,.0f} GB"


# --8<-- [start:calculator]
def training_memory(
    layers: int = 32,
    hidden: int = 4096,
    heads: int = 32,
    kv_heads: int = 8,
    intermediate: int = 14336,
    vocab: int = 128256,
    micro_batch: int = 1,
    seq_len: int = 8192,
    recompute: str = "selective",
    zero_stage: int = 0,
    data_parallel: int = 1,
    gradient_bytes: int = 2,
) -> str:
    """Per-GPU training memory for a Llama-shaped model (defaults: Llama-3
    8B), and whether it fits one H200. recompute: none, selective or full;
    gradient_bytes: 2 (bf16) or 4 (fp32, as Megatron-LM keeps them)."""
    cfg = ModelConfig("custom", layers, hidden, heads, kv_heads, intermediate, vocab)
    parts = training_memory_bytes(
        cfg, micro_batch, seq_len, recompute, zero_stage, data_parallel, gradient_bytes
    )
    terms = " + ".join(
        f"{name} {gb(parts[name])}"
        for name in ("weights", "gradients", "optimizer", "activations", "working set")
    )
    fits = "fits" if parts["total"] <= H200.memory_bytes else "does not fit"
    return (
        f"{terms} = {gb(parts['total'])} per GPU; "
        f"{fits} in one H200 ({gb(H200.memory_bytes)})"
    )


# --8<-- [end:calculator]


if __name__ == "__main__":
    for cfg in (LLAMA3_8B, LLAMA3_70B):
        n = parameter_count(cfg)["total"]
        print(f"{cfg.name}: {n / 1e9:.2f} B parameters")
        for mode in RECOMPUTE:
            parts = training_memory_bytes(cfg, 1, 8192, mode)
            print(f"  seq 8192, recompute {mode:>9}: {gb(parts['total'])}")
    print(training_memory(zero_stage=3, data_parallel=8, recompute="full"))
