"""The memory-bound floor, recomputed by hand."""

from snippets.interview_memory_bound import answer as a


def test_floors_by_hand():
    w = a.worked()
    numel = 8192 * 8192
    assert w["fused_bytes"] == 3 * numel * 2
    assert w["unfused_bytes"] == 5 * numel * 2
    assert abs(w["fused_s"] - 3 * numel * 2 / 4.8e12) < 1e-12
    assert abs(w["intensity"] - 1 / 3) < 1e-12


def test_facts_read_as_the_page_states_them():
    f = a.facts()
    assert f["answer.fused_floor"] == "83.9 µs"
    assert f["answer.ratio"] == "1.67×"
    assert f["answer.fp32_floor"] == "168 µs"  # twice the bytes
