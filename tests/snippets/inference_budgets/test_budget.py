"""The inference budget's formulas, checked by hand."""

import ast
import math
from pathlib import Path

import pytest

from kernels.devices import H200
from snippets.inference_budgets import budget
from snippets.inference_budgets.budget import (
    critical_batch,
    decode_ceiling,
    decode_flops_per_token,
    decode_step_seconds,
    kv_bytes_per_token,
    kv_cache,
    ridge_point,
    weight_intensity,
)


def test_kv_bytes_per_token_by_hand():
    # Llama-3 8B: 32 layers x 8 KV heads x 128 dims x (K and V) x 2 bytes.
    assert kv_bytes_per_token(32, 8, 128, 2) == 32 * 8 * 128 * 2 * 2 == 128 * 1024
    assert kv_bytes_per_token(32, 32, 128) == 4 * kv_bytes_per_token(32, 8, 128)


def test_decode_step_is_the_slower_of_memory_and_compute():
    bw, peak = H200.hbm_bytes_per_s, H200.bf16_dense_flop_per_s
    assert decode_step_seconds(1e9, 0, 1, 2e9) == 1e9 / bw
    assert decode_step_seconds(1e6, 0, 1000, 2e12) == 1000 * 2e12 / peak


def test_critical_batch_equalises_the_two_times():
    w, f, kv = 16e9, 16e9, 1e5
    b = critical_batch(w, f, kv)
    bw, peak = H200.hbm_bytes_per_s, H200.bf16_dense_flop_per_s
    assert b * f / peak == pytest.approx((w + b * kv) / bw)
    assert critical_batch(w, f) == pytest.approx(ridge_point() * w / f)
    assert math.isinf(critical_batch(w, f, 1e9))


def test_intensity_and_attention_flops():
    assert weight_intensity(1) == 1.0 and weight_intensity(2048, 1) == 4096
    assert decode_flops_per_token(10, 2, 4, 8, 100) == 20 + 4 * 2 * 4 * 8 * 100


def test_calculators_return_short_text():
    assert kv_cache().startswith("128 KiB per token")
    assert "fits in one H200" in decode_ceiling()
    assert "fits in one H200" in decode_ceiling(params_billion=70.55)
    llama3_70b = {"params_billion": 70.55, "layers": 80, "heads": 64}
    assert "3.35 ms" in decode_ceiling()  # the embedding is held, not streamed
    with pytest.raises(ValueError, match="embedding_billion"):
        decode_ceiling(params_billion=1, embedding_billion=1)
    # 141.1 GB of weights and four 2.68 GB sequences: over 150.75 GB.
    assert "does NOT fit" in decode_ceiling(**llama3_70b, batch=4)
    assert "fits in one H200" in decode_ceiling(**llama3_70b, batch=3)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: kv_bytes_per_token(0, 8, 128), "layers"),
        (lambda: kv_bytes_per_token(32, -1, 128), "kv_heads"),
        (lambda: kv_cache(context=0), "context"),
        (lambda: kv_cache(batch=-2), "batch"),
        (lambda: decode_ceiling(heads=30), "kv_heads"),
        (lambda: decode_ceiling(params_billion=0), "params_billion"),
        (lambda: decode_ceiling(context=-1), "context"),
        (lambda: weight_intensity(0), "tokens"),
        (lambda: critical_batch(1e9, 1e9, -1), "kv_bytes_per_seq"),
    ],
    ids=["layers", "kv", "ctx", "batch", "heads", "params", "neg-ctx", "tok", "kv-neg"],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_calculator_module_is_standard_library_only():
    tree = ast.parse(Path(budget.__file__).read_text())
    roots = {
        (n.module if isinstance(n, ast.ImportFrom) else n.names[0].name).split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
    }
    assert roots <= {"math", "kernels"}
