"""The training lesson's worked answers, recomputed by hand."""

from kernels.devices import H200
from snippets.lib.training_memory import worked
from snippets.lib.training_memory.budget import (
    LLAMA3_8B,
    parameter_count,
    training_memory_bytes,
)


def test_eight_b_state_fits_and_headroom():
    params = parameter_count(LLAMA3_8B)["total"]
    assert worked.model_state_gb("llama3-8b") == round(16 * params / 1e9, 1)
    assert worked.fmt_state_headroom("llama3-8b").endswith("left for activations")
    assert worked.fmt_state_headroom("llama3-70b").startswith("short by")


def test_only_full_recompute_fits_the_worked_sequence():
    assert worked.fmt_total("llama3-8b", "full").endswith("which fits")
    for mode in ("none", "selective"):
        assert worked.fmt_total("llama3-8b", mode).endswith("does not fit")


def test_longest_sequence_is_the_edge_of_fitting():
    for mode in ("selective", "full"):
        s = worked.longest_sequence("llama3-8b", mode)
        fit = training_memory_bytes(LLAMA3_8B, 1, s, mode)["total"]
        over = training_memory_bytes(LLAMA3_8B, 1, s + 1, mode)["total"]
        assert fit <= H200.memory_bytes < over
    assert worked.longest_sequence("llama3-70b", "full") == 0


def test_zero_ranks_for_70b():
    assert [worked.min_ranks("llama3-70b", s) for s in range(3)] == [None] * 3
    ranks = worked.min_ranks("llama3-70b", 3)
    assert ranks == 10  # without the working set it would be 9
    cfg = worked.model("llama3-70b")

    def total(n):
        return training_memory_bytes(cfg, 1, 8192, "full", 3, n)["total"]

    assert total(ranks) <= H200.memory_bytes < total(ranks - 1)


def test_tiny_model_prediction_matches_its_run_record():
    assert worked.tiny_state_bytes_predicted() == worked.tiny_state_bytes_measured()
    assert worked.facts()["tiny.parameters"].replace(",", "").isdigit()


def test_facts_state_the_recipe_and_the_device_memory():
    facts = worked.facts()
    assert facts["h200.memory_mib"] == "143,771 MiB"
    assert facts["bytes_per_parameter.fp32_gradients"] == "18 bytes"
    # 8.030e9 x 18 = 144.5e9: fits 150.75e9 with about 6 GB to spare.
    assert facts["state.llama3-8b.fp32_gradients"] == "144.5 GB"
    assert facts["headroom.llama3-8b.fp32_gradients"].endswith("left for activations")
    assert facts["per_token.llama3-8b.checkpoints"] == "262,144 B"  # 2*h*L
    assert facts["per_token.llama3-8b.recomputed_layer"] == "139,264 B"  # 34*h
    assert facts["per_token.llama3-8b.logits"] == "1,026,048 B"  # 8*V
    assert facts["gathered.llama3-70b"] == "5.13 GB"


def test_texts_and_table():
    assert worked.fmt_per_token_layer("llama3-8b", "full") == "8 KiB"
    assert worked.state_table("llama3-70b").count("\n") == 6
    assert worked.fmt_min_ranks("llama3-70b", 0) == "no number of GPUs"
