"""The measured half of the quantisation lesson
(docs/inference/quantisation-for-inference.md): the tiny model's linear
weights, or the keys and values its attention caches, rounded to int8 or fp8
and back, its next-token logits and choices compared with the float64
model's on held-out corpus text. Needs torch, so the site reads the result
from ``errors.json`` (rewritten by ``python -m
snippets.quantisation_for_inference.measure --write``; a test checks it against a
fresh run). Evidence kind: a CPU measurement of rounding error, not speed.
"""

import copy
import functools
import json
import sys
from pathlib import Path

import torch

from evidence import ROOT
from snippets.lib.tiny_lm.checkpoint import load_checkpoint
from snippets.lib.tiny_lm.model import encode

RECORD = Path(__file__).resolve().with_name("errors.json")
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


def record() -> list[dict]:
    """errors() as JSON rows, in table order."""
    return [
        {"variant": variant, "format": fmt, **values}
        for (variant, fmt), values in errors().items()
    ]


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:  # run plainly, it compares and writes nothing
        RECORD.write_text(json.dumps(record(), indent=1) + "\n")
        print(f"wrote {RECORD.relative_to(ROOT)}")
    else:
        for row in record():
            print(
                f"{row['variant']:8} {row['format']:9} max logit error "
                f"{row['max_logit_error']:.3f}, top-1 agreement "
                f"{row['top1_agreement']:.1%}"
            )
