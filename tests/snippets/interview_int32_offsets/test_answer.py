"""The exercise's named values (the wrap-around model is tested in
tests/snippets/lib/test_int32_offsets.py)."""

from snippets.interview_int32_offsets import answer as a


def test_facts():
    f = a.facts()
    assert f["answer.first_lane"] == "100"
    assert f["answer.wrapped"] == "−2,147,483,648"
    assert f["answer.bf16_gb"] == "4.29 GB"
    assert f["answer.first_program"] == "2,097,152"
