"""The training-memory model, checked against hand counts and the papers."""

import pytest

from snippets.lib.training_memory import budget
from snippets.lib.training_memory.budget import (
    LLAMA3_8B,
    LLAMA3_70B,
    ModelConfig,
    activation_bytes_per_layer,
    model_state_bytes,
    parameter_count,
    training_memory,
    training_memory_bytes,
)


def test_parameter_counts_match_the_published_sizes():
    # Hand count for the 8B model: untied embedding and head, GQA k/v.
    h, i, v, layers = 4096, 14336, 128256, 32
    per_layer = 2 * h * h + 2 * h * 1024 + 3 * h * i + 2 * h
    assert parameter_count(LLAMA3_8B)["total"] == layers * per_layer + 2 * v * h + h
    assert 8.0e9 < parameter_count(LLAMA3_8B)["total"] < 8.1e9
    assert 70.5e9 < parameter_count(LLAMA3_70B)["total"] < 70.6e9


def test_sixteen_bytes_per_parameter_and_zero_stages():
    p = 1000
    assert sum(budget.BYTES_PER_PARAMETER.values()) == 16
    # ZeRO paper: 2P + 2P + 12P, then 4P + 12P/N, 2P + 14P/N, 16P/N.
    n = 8
    totals = [sum(model_state_bytes(p, s, n).values()) for s in range(4)]
    assert totals == [16 * p, 4 * p + 12 * p / n, 2 * p + 14 * p / n, 16 * p / n]
    assert sum(model_state_bytes(p, 3, 1).values()) == 16 * p


def test_activations_follow_korthikanti():
    s, b, h, a = 2048, 2, 1024, 16
    none = activation_bytes_per_layer(s, b, h, a, "none")
    # Korthikanti's 5*a*s/h less the dropout mask and output: Llama-3 has
    # no attention dropout, so only the softmax output's 2 bytes remain.
    assert none == s * b * h * (34 + 2 * a * s / h)
    assert activation_bytes_per_layer(s, b, h, a, "selective") == 34 * s * b * h
    assert activation_bytes_per_layer(s, b, h, a, "full") == 2 * s * b * h


def test_gradient_precision_sets_sixteen_or_eighteen_bytes():
    p = 1000
    assert sum(model_state_bytes(p).values()) == 16 * p
    assert sum(model_state_bytes(p, gradient_bytes=4).values()) == 18 * p
    # ZeRO-2 shards the fp32 gradients too: 2 + 16/N.
    assert (
        sum(model_state_bytes(p, 2, 8, gradient_bytes=4).values()) == 2 * p + 16 * p / 8
    )
    with pytest.raises(ValueError, match="gradient_bytes"):
        model_state_bytes(p, gradient_bytes=3)


def test_working_set_holds_the_recomputed_layer_logits_and_gathered_layers():
    s, cfg = 8192, LLAMA3_70B
    work = budget.working_set_bytes(cfg, 1, s, "full", zero_stage=3)
    assert work["recomputed layer"] == 34 * s * cfg.hidden
    assert work["logits"] == 8 * s * 128256
    # Current and prefetched bf16 layers plus one bf16 gradient: 3 x 1.71 GB.
    per_layer = 2 * 8192**2 + 2 * 8192 * 1024 + 3 * 8192 * 28672
    assert work["gathered layers"] == 6 * per_layer
    assert budget.working_set_bytes(cfg, 1, s, "selective")["recomputed layer"] == 0
    assert budget.working_set_bytes(cfg, 1, s, "full")["gathered layers"] == 0


def test_total_adds_the_parts():
    parts = training_memory_bytes(LLAMA3_8B, 1, 4096, "full", 2, 4)
    assert parts["total"] == sum(v for k, v in parts.items() if k != "total")


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: model_state_bytes(-1), "params"),
        (lambda: model_state_bytes(10, 0, 0), "data_parallel"),
        (lambda: model_state_bytes(10, 4), "zero_stage"),
        (lambda: activation_bytes_per_layer(0, 1, 8, 2, "full"), "seq_len"),
        (lambda: activation_bytes_per_layer(4, 1, 8, 2, "some"), "recompute"),
        (lambda: ModelConfig("x", 2, 64, 5, 1, 128, 10), "heads"),
        (lambda: ModelConfig("x", 2, 64, 8, 3, 128, 10), "kv_heads"),
        (lambda: ModelConfig("x", 0, 64, 8, 8, 128, 10), "layers"),
        (lambda: training_memory(micro_batch=0), "micro_batch"),
    ],
    ids=["params", "ranks", "stage", "seq", "mode", "heads", "kv", "layers", "mb"],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_calculator_defaults_are_llama3_8b_and_say_fit():
    import inspect

    defaults = inspect.signature(training_memory).parameters
    for field in ("layers", "hidden", "heads", "kv_heads", "intermediate", "vocab"):
        assert defaults[field].default == getattr(LLAMA3_8B, field)
    assert "does not fit" in training_memory()
    text = training_memory(recompute="full", zero_stage=3, data_parallel=8)
    assert text.endswith("fits in one H200 (151 GB)")


def test_calculator_module_is_standard_library_only():
    import ast
    from pathlib import Path

    tree = ast.parse(Path(budget.__file__).read_text())
    roots = {
        (n.module if isinstance(n, ast.ImportFrom) else n.names[0].name).split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
    }
    assert roots <= {"dataclasses", "kernels"}
