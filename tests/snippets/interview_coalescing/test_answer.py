"""Sectors and banks of a naive and a tiled transpose, by hand."""

from snippets.interview_coalescing import answer as a


def test_a_row_read_coalesces_and_a_column_write_does_not():
    warp = a.naive_transpose_warp(step=3)
    assert a.sectors(warp["read"]) == 32 * 4 // 32  # 128 contiguous bytes
    assert a.sectors(warp["write"]) == 32  # 16 KiB apart: one sector each
    assert a.used_fraction(warp["write"]) == 4 / 32


def test_padding_removes_the_bank_conflict():
    assert a.column_conflicts(0) == 32
    assert a.column_conflicts(1) == 1


def test_facts():
    assert a.facts()["answer.write_used"] == "12.5%"
