"""int32 wrap-around and the overflow threshold (snippets/lib/int32_offsets.py),
checked against known values and numpy's own int32 arithmetic."""

import numpy as np
import pytest

from snippets.lib import int32_offsets as m


@pytest.mark.parametrize(
    "value, wrapped",
    [(2**31 - 1, 2**31 - 1), (2**31, -(2**31)), (-1, -1), (2**32 + 5, 5)],
)
def test_as_int32(value, wrapped):
    assert m.as_int32(value) == wrapped


def test_the_graders_case_wraps_at_lane_100():
    assert m.first_wrapped_lane(2**31 - 100, 4096) == 100
    assert m.first_wrapped_lane(1000, 4096) is None  # the first case is fine


def test_pid_times_block():
    assert m.first_wrapping_program(1024) == 2**21
    assert m.as_int32((2**21 - 1) * 1024) > 0 > m.as_int32(2**21 * 1024)


def test_the_threshold_is_just_past_two_to_the_31():
    assert m.first_overflowing_numel() == 2**31 + 1
    assert m.largest_offset(2**31) == 2**31 - 1
    assert m.largest_offset(2**31 + 1) > m.INT32_MAX


def test_int32_arithmetic_wraps_there():
    pid = np.int32((2**31 + 1 - 1) // 1024)  # the last program's id
    with np.errstate(over="ignore"):
        wrapped = pid * np.int32(1024)
    assert wrapped < 0  # what 32-bit pid * BLOCK_SIZE computes
    assert m.as_int32(int(pid) * 1024) == wrapped
