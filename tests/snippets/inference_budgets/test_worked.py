"""The inference lesson's worked answers, recomputed by hand."""

import math

from kernels.devices import H200
from snippets.inference_budgets import worked
from snippets.lib.training_memory.budget import LLAMA3_8B, parameter_count


def test_gqa_factors_and_cache_sizes():
    assert worked.fmt_kv("llama3-8b") == "128 KiB"
    assert worked.fmt_kv("llama3-70b") == "320 KiB"
    assert worked.fmt_gqa_factor("llama3-70b") == "8×"


def test_tokens_that_fit_beside_the_weights():
    n = parameter_count(LLAMA3_8B)["total"]
    room = H200.memory_bytes - 2 * n
    assert worked.tokens_that_fit("llama3-8b") == math.floor(room / (128 * 1024))
    # On the memory the device reports, the 70B model's bf16 weights fit
    # with room for three full sequences (they would not in 141e9 bytes).
    room_70b = H200.memory_bytes - 2 * 70_553_706_496
    assert 9.6e9 < room_70b < 9.7e9
    assert worked.tokens_that_fit("llama3-70b") == math.floor(room_70b / (320 * 1024))
    assert worked.fmt_sequences_that_fit("llama3-70b") == "3 sequences"
    assert not worked.fmt_room("llama3-70b").startswith("minus")


def test_facts_state_the_memory_as_the_device_reports_it():
    facts = worked.facts()
    assert facts["h200.memory_mib"] == "143,771 MiB"
    assert facts["h200.memory"] == "151 GB"
    assert facts["h200.bandwidth"] == "4.8 TB/s"


def test_single_sequence_ceiling_is_bandwidth():
    # Every weight but the input embedding (a lookup of one row), plus the
    # cache: (16.06 - 1.05 + 1.07) GB / 4.8 TB/s = 3.35 ms (finding F5).
    n = parameter_count(LLAMA3_8B)["total"] - 128256 * 4096
    step = (2 * n + 8192 * 128 * 1024) / H200.hbm_bytes_per_s
    assert worked.step_seconds("llama3-8b", 1) == step
    assert worked.fmt_step("llama3-8b", 1) == "3.35 ms"


def test_critical_batches():
    assert math.isinf(worked.critical("llama3-8b", worked.WORKED["context"]))
    edge = worked.longest_compute_bound_context("llama3-8b")
    assert not math.isinf(worked.critical("llama3-8b", edge))
    assert math.isinf(worked.critical("llama3-8b", edge + 1))
    assert worked.fmt_critical("llama3-8b", 0).endswith("sequences")
    assert worked.WORKED["prompt"] == 2048  # the page's fmt_intensity(2048)
