"""FLOPs and bytes for a whole model (lesson: The roofline for a whole model).

Plain Python: counts from the model's sizes, timed against the H200's
published figures in kernels/devices.py.
"""

from dataclasses import dataclass

from kernels.devices import H200
from snippets.lib.training_memory.budget import (
    ModelConfig,
    check_positive,
    parameter_count,
)


def check_not_negative(name: str, value: float) -> None:
    if isinstance(value, bool) or not value >= 0:
        raise ValueError(f"{name} must not be negative, got {value!r}")


# --8<-- [start:matmul-params]
def matmul_params(cfg: ModelConfig) -> int:
    """N in the FLOP formulas: every weight a matmul multiplies. The input
    embedding is a table lookup, no arithmetic, so it is left out."""
    parts = parameter_count(cfg)
    return parts["total"] - parts["embedding"]


# --8<-- [end:matmul-params]


# --8<-- [start:per-token]
def attention_flops_per_token(cfg: ModelConfig, context: int) -> int:
    """Forward attention FLOPs for one token that attends to `context`
    tokens: q.k and the weighted sum of v, 2 FLOPs each per head dimension,
    per head, per layer (4*L*H*Q*T; no discount for the causal mask)."""
    check_not_negative("context", context)
    return 4 * cfg.layers * cfg.heads * cfg.head_dim * context


def training_flops_per_token(cfg: ModelConfig, seq_len: int) -> int:
    """6N + 12*L*H*Q*T: the backward pass costs twice the forward."""
    check_positive("seq_len", seq_len)
    return 6 * matmul_params(cfg) + 3 * attention_flops_per_token(cfg, seq_len)


def inference_flops_per_token(cfg: ModelConfig, context: int) -> int:
    """2N + 4*L*H*Q*T: the forward pass alone."""
    return 2 * matmul_params(cfg) + attention_flops_per_token(cfg, context)


# --8<-- [end:per-token]


# --8<-- [start:mfu]
def mfu(
    tokens_per_s_per_gpu: float,
    flops_per_token: float,
    peak_flop_per_s: float = H200.bf16_dense_flop_per_s,
) -> float:
    """Model FLOPs utilisation: the FLOPs the model needs per second at the
    observed throughput, over the device's peak. Recomputed activations do
    not count: they are work the model did not need."""
    check_positive("tokens_per_s_per_gpu", tokens_per_s_per_gpu)
    check_positive("flops_per_token", flops_per_token)
    check_positive("peak_flop_per_s", peak_flop_per_s)
    return tokens_per_s_per_gpu * flops_per_token / peak_flop_per_s


# --8<-- [end:mfu]


@dataclass(frozen=True)
class Op:
    name: str
    flops: float
    bytes: float

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes

    def seconds(self) -> float:
        """Roofline time on the H200: the slower of moving and computing."""
        return max(
            self.bytes / H200.hbm_bytes_per_s,
            self.flops / H200.bf16_dense_flop_per_s,
        )

    def bound(self) -> str:
        memory = self.bytes / H200.hbm_bytes_per_s
        compute = self.flops / H200.bf16_dense_flop_per_s
        return "memory" if memory >= compute else "compute"


# --8<-- [start:layer-ops]
def matmul(name: str, tokens: int, k: int, n: int, eb: int) -> Op:
    """(tokens x k) @ (k x n): 2 FLOPs per multiply-add; the weight, the
    input and the output each cross HBM once."""
    return Op(name, 2 * tokens * k * n, eb * (k * n + tokens * k + tokens * n))


def layer_ops(
    cfg: ModelConfig, phase: str, tokens: int, context: int = 0, eb: int = 2
) -> list[Op]:
    """One layer's big operations, bf16 by default.

    decode:  `tokens` sequences each add one token and each read their own
             cache of `context` tokens (a decode step at batch = tokens).
    prefill: one prompt of `tokens` tokens attends to itself (context is
             the prompt; the argument is ignored)."""
    check_positive("tokens", tokens)
    if phase == "decode":
        check_positive("context", context)
        caches = tokens
    elif phase == "prefill":
        context, caches = tokens, 1
    else:
        raise ValueError(f"phase must be 'decode' or 'prefill', got {phase!r}")
    h, kv_width = cfg.hidden, cfg.kv_heads * cfg.head_dim
    attention = Op(
        "attention",
        4 * tokens * cfg.heads * cfg.head_dim * context,
        # K and V of every cache in; q in and the output out.
        caches * 2 * context * kv_width * eb + 2 * tokens * h * eb,
    )
    return [
        matmul("qkv projection", tokens, h, h + 2 * kv_width, eb),
        attention,
        matmul("output projection", tokens, h, h, eb),
        matmul("gate and up", tokens, h, 2 * cfg.intermediate, eb),
        matmul("down", tokens, cfg.intermediate, h, eb),
    ]


# --8<-- [end:layer-ops]


if __name__ == "__main__":
    from snippets.lib.training_memory.budget import LLAMA3_8B

    train = training_flops_per_token(LLAMA3_8B, 8192)
    print(f"training FLOPs/token at 8192: {train / 1e9:.1f} G")
    print(f"MFU at 3000 tokens/s/GPU: {mfu(3000, train):.1%}")
    for label, t, c in (("decode", 1, 8192), ("prefill", 2048, 0)):
        for op in layer_ops(LLAMA3_8B, label, t, c):
            print(f"{label:>7} {op.name:>17}: {op.intensity:8.1f} FLOP/B {op.bound()}")
