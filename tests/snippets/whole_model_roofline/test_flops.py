"""FLOP and byte counts of the whole-model lesson, by hand."""

import pytest

from kernels.devices import H200
from snippets.lib.training_memory.budget import LLAMA3_8B, parameter_count
from snippets.whole_model_roofline.flops import (
    inference_flops_per_token,
    layer_ops,
    matmul,
    matmul_params,
    mfu,
    training_flops_per_token,
)


def test_palm_counts():
    n = parameter_count(LLAMA3_8B)["total"] - 128256 * 4096
    assert matmul_params(LLAMA3_8B) == n
    attention = 32 * 32 * 128 * 8192
    assert training_flops_per_token(LLAMA3_8B, 8192) == 6 * n + 12 * attention
    assert inference_flops_per_token(LLAMA3_8B, 8192) == 2 * n + 4 * attention


def test_mfu_by_hand():
    assert mfu(1000, 1e12) == pytest.approx(1e15 / H200.bf16_dense_flop_per_s)


def test_layer_ops_cover_the_layer_weights():
    ops = layer_ops(LLAMA3_8B, "decode", 1, 8192)
    matmul_flops = sum(op.flops for op in ops if op.name != "attention")
    per_layer = parameter_count(LLAMA3_8B)
    weights = (per_layer["attention"] + per_layer["mlp"]) / 32
    assert matmul_flops == 2 * weights
    assert all(op.bound() == "memory" for op in ops)
    assert all(op.bound() == "compute" for op in layer_ops(LLAMA3_8B, "prefill", 2048))
    assert matmul("x", 3, 5, 7, 2).bytes == 2 * (35 + 15 + 21)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: layer_ops(LLAMA3_8B, "decode", 1, 0), "context"),
        (lambda: layer_ops(LLAMA3_8B, "serve", 1, 1), "phase"),
        (lambda: layer_ops(LLAMA3_8B, "prefill", 0), "tokens"),
        (lambda: training_flops_per_token(LLAMA3_8B, 0), "seq_len"),
        (lambda: mfu(0, 1), "tokens_per_s_per_gpu"),
    ],
    ids=["context", "phase", "tokens", "seq", "tps"],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
