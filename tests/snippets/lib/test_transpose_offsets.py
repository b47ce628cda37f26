"""Layouts, a transposed view, lane ownership and shared-memory banks."""

from snippets.lib.transpose_offsets import (
    Layout,
    column_read_banks,
    conflict_degree,
    mistaken_output_layout,
    offset_grid,
    ownership_errors,
    row_major,
    transpose_writes,
)


def test_transpose_view_changes_coordinates_not_storage():
    source = row_major(3, 4)
    view = source.transposed()
    assert view == Layout((4, 3), (1, 4))
    assert offset_grid(source) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    for i in range(3):
        for j in range(4):
            assert view.offset((j, i)) == source.offset((i, j))
    # Same storage: the view reaches exactly the offsets the source does.
    flat = lambda grid: sorted(o for row in grid for o in row)  # noqa: E731
    assert flat(offset_grid(view)) == flat(offset_grid(source))
    # A contiguous copy of the transpose is a different layout.
    assert offset_grid(row_major(4, 3))[1] == [3, 4, 5]


def test_lane_assignment_owns_each_output_once():
    good = transpose_writes(3, 4, row_major(4, 3))
    assert ownership_errors(good, 12) == {
        "written_twice": [],
        "never_written": [],
        "out_of_bounds": [],
    }
    # Lane 1 at step 2 reads input (2, 1) and writes output (1, 2).
    assert (2, 1, row_major(4, 3).offset((1, 2))) in good
    # Reusing the input's row stride for the output must be caught.
    broken = transpose_writes(3, 4, mistaken_output_layout(3, 4))
    assert ownership_errors(broken, 12) == {
        "written_twice": [],
        "never_written": [3, 7, 11],
        "out_of_bounds": [12, 13, 14],
    }
    # A square tile hides the bug: the strides coincide.
    square = transpose_writes(4, 4, mistaken_output_layout(4, 4))
    assert not any(ownership_errors(square, 16).values())


def test_padding_removes_bank_conflicts():
    plain, padded = row_major(32, 32), row_major(32, 32, pad=1)
    column = [(lane, 0) for lane in range(32)]
    row = [(0, lane) for lane in range(32)]
    assert column_read_banks(plain, 0) == [0] * 32
    assert column_read_banks(padded, 0) == list(range(32))
    assert conflict_degree(plain, column) == 32
    assert conflict_degree(padded, column) == 1
    assert conflict_degree(plain, row) == conflict_degree(padded, row) == 1
    # All lanes reading one word is a broadcast, not a conflict.
    assert conflict_degree(plain, [(0, 0)] * 32) == 1
