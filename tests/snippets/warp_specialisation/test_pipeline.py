"""snippets/warp_specialisation/pipeline.py: the timeline models against
their closed forms, worked by hand."""

import pytest

from snippets.warp_specialisation import pipeline as p


def test_the_step_counts_by_hand():
    step = p.attention_step()
    assert p.TENSOR_FLOP_PER_CLOCK == 4096  # 989.5e12 / 132 / 1.83e9
    assert step.matrix == 4 * 128**3 / 4096 == 2048
    assert step.exponentials == 128 * 128 / 16 == 1024
    assert step.other == 128 * 128 * 4 / 128 == 512
    assert p.attention_step(fp8=True).matrix == 1024


def test_one_slot_adds_two_slots_overlap():
    # Closed forms: one slot, load + compute; two or more, the longer one.
    assert p.ring_time_per_step(1000, 1500, 1) == 2500
    assert p.ring_time_per_step(1000, 1500, 2) == 1500
    assert p.ring_time_per_step(1500, 1000, 3) == 1500
    first = p.ring(3, 10, 20, 2)[0]
    assert first == (0, 0.0, 10.0, 10.0, 30.0)


@pytest.mark.parametrize("fp8", [False, True], ids=["bf16", "fp8"])
@pytest.mark.parametrize("groups", [1, 2, 3])
def test_ping_pong_matches_its_closed_form(groups, fp8):
    # Per block of all groups: max(matrix, (matrix + softmax) / groups).
    step = p.attention_step(fp8=fp8)
    expected = max(step.matrix, (step.matrix + step.softmax) / groups)
    assert p.ping_pong_time_per_block(step, groups) == pytest.approx(expected)


def test_the_bound_is_serial_over_the_longer_phase():
    step = p.attention_step()
    assert p.overlap_bound(step) == pytest.approx(3584 / 2048)
    serial = p.ping_pong_time_per_block(step, 1)
    assert serial == 3584 and p.tensor_busy(step, serial) == pytest.approx(2048 / 3584)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="stages"):
        p.ring(4, 1, 1, 0)
    with pytest.raises(ValueError, match="groups"):
        p.ping_pong(4, p.attention_step(), 0)


def test_facts_answer_the_exercises():
    facts = p.facts()
    assert facts["fp8_paired_busy"] == "80%"  # 1024 / max(1024, 2560 / 2)
    assert facts["ring_one_stage"] == "2,500" and facts["ring_two_stages"] == "1,500"
    assert facts["bound"] == "1.75" and facts["serial_busy"] == "57%"
