"""Quantisation for inference: int8 and fp8 weights and KV cache, the bytes
they save, the error they cost on the tiny model, and the decode ceiling
they move (docs/inference/quantisation-for-inference.md).

The error is measured, not assumed, in ``measure.py`` (which needs torch);
this file reads that measurement from ``errors.json`` and does the
arithmetic, so the site's build never imports torch.
"""

import json
from pathlib import Path

from kernels.devices import H200
from snippets.lib.batching import MODEL, kv_bytes_per_token

RECORD = Path(__file__).resolve().with_name("errors.json")


def errors() -> dict:
    """(variant, format) -> the recorded error of that rounding."""
    rows = json.loads(RECORD.read_text(encoding="utf-8"))
    return {(row["variant"], row["format"]): row for row in rows}


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
