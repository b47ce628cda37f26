"""int32 wrap-around, checked against known values."""

import pytest

from snippets.interview_int32_offsets import answer as a


@pytest.mark.parametrize(
    "value, wrapped",
    [(2**31 - 1, 2**31 - 1), (2**31, -(2**31)), (-1, -1), (2**32 + 5, 5)],
)
def test_as_int32(value, wrapped):
    assert a.as_int32(value) == wrapped


def test_the_graders_case_wraps_at_lane_100():
    assert a.first_wrapped_lane(2**31 - 100, 4096) == 100
    assert a.first_wrapped_lane(1000, 4096) is None  # the first case is fine


def test_pid_times_block():
    assert a.first_wrapping_program(1024) == 2**21
    assert a.as_int32((2**21 - 1) * 1024) > 0 > a.as_int32(2**21 * 1024)


def test_facts():
    f = a.facts()
    assert f["answer.wrapped"] == "−2,147,483,648"
    assert f["answer.bf16_gb"] == "4.29 GB"
