"""The int32 offset overflow of the generated kernel
(snippets/qualify_a_generated_kernel/overflow.py)."""

import numpy as np

from snippets.qualify_a_generated_kernel import overflow


def test_the_threshold_is_just_past_two_to_the_31():
    assert overflow.first_overflowing_numel() == 2**31 + 1
    assert overflow.largest_offset(2**31) == 2**31 - 1
    assert overflow.largest_offset(2**31 + 1) > overflow.INT32_MAX


def test_int32_arithmetic_wraps_there():
    pid = np.int32((2**31 + 1 - 1) // 1024)  # the last program's id
    with np.errstate(over="ignore"):
        wrapped = pid * np.int32(1024)
    assert wrapped < 0  # what 32-bit pid * BLOCK_SIZE computes


def test_text():
    assert (
        overflow.overflow_text() == "2,147,483,649 elements (8 GiB per float32 tensor)"
    )
