"""Quantisation for inference: int8 and fp8 weights and KV cache, the bytes
they save, the error they cost on the tiny model, and the decode ceiling
they move (docs/inference/quantisation-for-inference.md).

The error is measured, not assumed: the tiny model's linear weights (or the
keys and values its attention caches) are rounded to int8 or fp8 and back,
and its next-token logits and choices are compared with the float64 model's
on held-out corpus text.
"""

import copy
import functools

import torch

from evidence import ROOT
from kernels.devices import H200
from snippets.lib.batching import MODEL, kv_bytes_per_token
from snippets.lib.tiny_lm.checkpoint import load_checkpoint
from snippets.lib.tiny_lm.model import encode

CHECKPOINT = ROOT / "results" / "tiny_lm" / "checkpoint.pt"
CORPUS = ROOT / "results" / "tiny_lm" / "corpus.txt"
FP8_MAX = 448.0  # the largest finite float8 e4m3 value


# --8<-- [start:round-trip]
def int8_round_trip(w: torch.Tensor) -> torch.Tensor:
    """Symmetric int8 with one scale per row (per output channel for a
    weight, per token and head for a key or value): the largest magnitude
    maps to 127, everything is rounded to the nearest step."""
    scale = w.abs().amax(-1, keepdim=True).clamp_min(1e-12) / 127
    return (w / scale).round().clamp(-127, 127) * scale


def fp8_round_trip(w: torch.Tensor) -> torch.Tensor:
    """float8 e4m3 with one scale per row: the largest magnitude maps to
    448; the format keeps 3 mantissa bits at every exponent."""
    scale = w.abs().amax(-1, keepdim=True).clamp_min(1e-12) / FP8_MAX
    return (w / scale).to(torch.float8_e4m3fn).to(w.dtype) * scale


# --8<-- [end:round-trip]

FORMATS = {"int8": int8_round_trip, "fp8 e4m3": fp8_round_trip}


def quantised_weights(model, round_trip):
    """A copy of the model with every linear layer's weight rounded."""
    out = copy.deepcopy(model)
    with torch.no_grad():
        for module in out.modules():
            if isinstance(module, torch.nn.Linear):
                module.weight.copy_(round_trip(module.weight))
    return out


def quantised_kv(model, round_trip):
    """A copy of the model whose attention sees rounded keys and values, as
    if its KV cache were stored in the format (queries stay exact)."""
    out = copy.deepcopy(model)
    width, heads = model.config["width"], model.config["heads"]

    def hook(_module, _inputs, qkv):
        q, k, v = qkv.split(width, -1)
        shape = (*k.shape[:-1], heads, width // heads)
        k = round_trip(k.reshape(shape)).reshape(k.shape)
        v = round_trip(v.reshape(shape)).reshape(v.shape)
        return torch.cat([q, k, v], -1)

    for block in out.blocks:
        block.attention.qkv.register_forward_hook(hook)
    return out


@functools.cache
def float64_model():
    return load_checkpoint(CHECKPOINT).to(torch.float64)


@functools.cache
def heldout_windows(count: int = 8) -> torch.Tensor:
    """Context-length windows from the end of the corpus (the held-out part)."""
    tokens = encode(CORPUS.read_text(encoding="utf-8"))
    context = 64
    tail = tokens[-count * context :]
    return torch.tensor(tail).view(count, context)


# --8<-- [start:measure]
@torch.no_grad()
def error(variant: str, fmt: str) -> dict:
    """Logit error and next-token agreement of one quantised copy against
    the float64 model, over every position of the held-out windows."""
    model = float64_model()
    make = quantised_weights if variant == "weights" else quantised_kv
    other = make(model, FORMATS[fmt])
    x = heldout_windows()
    exact, approx = model(x), other(x)
    diff = (approx - exact).abs()
    return {
        "max_logit_error": float(diff.max()),
        "mean_logit_error": float(diff.mean()),
        "logit_spread": float(exact.std()),
        "top1_agreement": float(
            (approx.argmax(-1) == exact.argmax(-1)).double().mean()
        ),
        "positions": x.numel(),
    }


# --8<-- [end:measure]


@functools.cache
def errors() -> dict:
    return {
        (variant, fmt): error(variant, fmt)
        for variant in ("weights", "kv")
        for fmt in FORMATS
    }


def error_table() -> str:
    lines = [
        "| rounded | format | bytes per value | mean logit error | max logit error "
        "| same next token |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for (variant, fmt), e in errors().items():
        lines.append(
            f"| {'linear weights' if variant == 'weights' else 'keys and values'} "
            f"| {fmt} | 1 | {e['mean_logit_error']:.4f} | {e['max_logit_error']:.3f} "
            f"| {e['top1_agreement']:.2%} |"
        )
    return "\n".join(lines)


# --8<-- [start:ceiling]
def decode_ceiling(weight_bytes: int, kv_bytes: int, batch: int, m=MODEL) -> float:
    """Tokens per second at the H200's bandwidth bound for the example model
    with `weight_bytes` per parameter and `kv_bytes` per cached value."""
    kv = kv_bytes_per_token(m["layers"], m["kv_heads"], m["head_dim"], kv_bytes)
    step = (m["params"] * weight_bytes + batch * kv * m["context_tokens"]) / (
        H200.hbm_bytes_per_s
    )
    return batch / step


# --8<-- [end:ceiling]


def ceiling_table(batches=(1, 32, 128)) -> str:
    lines = [
        "| weights | KV cache | " + " | ".join(f"batch {b}" for b in batches) + " |",
        "| --- | --- |" + " ---: |" * len(batches),
    ]
    for wname, wb, kname, kb in (
        ("bf16", 2, "bf16", 2),
        ("int8 / fp8", 1, "bf16", 2),
        ("int8 / fp8", 1, "int8 / fp8", 1),
    ):
        cells = " | ".join(f"{decode_ceiling(wb, kb, b):,.0f} tok/s" for b in batches)
        lines.append(f"| {wname} | {kname} | {cells} |")
    return "\n".join(lines)


EX1 = dict(params=70e9)
EX2 = dict(batch=64)


def facts() -> dict[str, str]:
    e = errors()
    w8, k8 = e[("weights", "int8")], e[("kv", "int8")]
    b = EX2["batch"]
    return {
        "positions": f"{w8['positions']:,}",
        "logit_spread": f"{w8['logit_spread']:.2f}",
        "w_int8_agree": f"{w8['top1_agreement']:.2%}",
        "kv_int8_agree": f"{k8['top1_agreement']:.2%}",
        "ex1_q": f"{EX1['params'] / 1e9:.0f} billion parameters",
        "ex1_a": (
            f"{EX1['params'] * 2 / 1e9:.0f} GB in bf16, {EX1['params'] / 1e9:.0f} GB "
            f"in int8 or fp8; at the H200's bandwidth one read takes "
            f"{EX1['params'] * 2 / H200.hbm_bytes_per_s * 1e3:.1f} ms against "
            f"{EX1['params'] / H200.hbm_bytes_per_s * 1e3:.1f} ms"
        ),
        "ex2_q": f"a batch of {b}",
        "ex2_a": (
            f"{decode_ceiling(2, 2, b):,.0f} tok/s in bf16, "
            f"{decode_ceiling(1, 2, b):,.0f} with 8-bit weights "
            f"({decode_ceiling(1, 2, b) / decode_ceiling(2, 2, b):.2f}×), "
            f"{decode_ceiling(1, 1, b):,.0f} with 8-bit weights and KV "
            f"({decode_ceiling(1, 1, b) / decode_ceiling(2, 2, b):.2f}×)"
        ),
    }


if __name__ == "__main__":
    print(error_table())
    print(ceiling_table())
