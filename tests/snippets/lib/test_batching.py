import pytest

from snippets.lib import batching


def test_kv_bytes_per_token_by_hand():
    assert batching.kv_bytes_per_token(32, 8, 128, 2) == 2 * 32 * 8 * 128 * 2


def test_a_bigger_batch_amortises_the_weights():
    one, many = batching.decode_step(1), batching.decode_step(64)
    assert many["tokens_per_s"] > 30 * one["tokens_per_s"]
    assert many["step_s"] > one["step_s"]  # each sequence's KV still costs


def brute_force_busy(lengths):
    return sum(lengths)


@pytest.mark.parametrize(
    "schedule", [batching.static_schedule, batching.continuous_schedule]
)
def test_every_request_gets_exactly_its_tokens(schedule):
    steps = schedule(batching.LENGTHS, batching.BATCH)
    counts = {}
    for row in steps:
        assert len(row) == batching.BATCH
        for i in row:
            if i is not None:
                counts[i] = counts.get(i, 0) + 1
    assert [counts[i] for i in range(len(batching.LENGTHS))] == batching.LENGTHS
    busy = batching.utilization(steps) * len(steps) * batching.BATCH
    assert busy == pytest.approx(brute_force_busy(batching.LENGTHS))


def test_continuous_beats_static_on_the_example():
    c = batching.compare()
    assert c["continuous"]["steps"] < c["static"]["steps"]
    assert c["continuous"]["mean_finish"] < c["static"]["mean_finish"]
    assert batching.static_schedule([2, 5], 2)[2] == [None, 1]


def test_texts_and_exercises():
    assert batching.model_text("kv_per_token") == "128 KiB"
    assert "batch 64" in batching.exercise_text("ex1_a")
    # 500 steps, busy slots 20 + 500 + 30 + 40 = 590 of 2,000.
    assert batching.exercise_text("ex2_a").startswith("500 steps, 30% ")
    assert batching.decode_table().count("\n") == 5
    with pytest.raises(ValueError, match="which"):
        batching.exercise_text("x")


def test_gantt_draws_a_cell_per_slot_step():
    fig = batching.gantt([2, 3], 2)
    top, bottom = fig.axes
    assert len(top.patches) == 2 * 3  # static: 3 steps x 2 slots
    assert len(bottom.patches) == 2 * 3


def test_decode_turns_compute_bound_only_for_short_contexts():
    from snippets.lib import batching

    # 989e12 FLOP/s x 2 bytes / (2 x 4.8e12 B/s) = 206 sequences.
    assert round(batching.ridge_batch()) == 206
    short = {**batching.MODEL, "context_tokens": 10}
    assert batching.decode_step(1024, short)["bound"] == "compute"
    assert batching.decode_step(1024)["bound"] == "memory"  # 1,000 tokens: KV wins
    assert batching.short_context_limit() < batching.MODEL["context_tokens"]


def test_request_labels_are_one_glyph():
    from snippets.lib import batching

    assert [batching.request_label(i) for i in (0, 11)] == ["A", "L"]
