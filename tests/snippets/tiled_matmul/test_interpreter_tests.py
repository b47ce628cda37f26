"""The reader that lists what the matmul interpreter tests check."""

import pytest

from snippets.tiled_matmul import interpreter_tests as it

TEST_SOURCE = '''
import pytest

SHAPES = [(1, 1, 1), (257, 255, 97)]
NAMED_SHAPES = {"primes": (257, 263, 67)}
TILE_SHAPES: list = [(16, 16, 16)]
NOT_SHAPES = [1, 2]
dtype_shapes = "not a table"


@pytest.mark.parametrize("shape", SHAPES)
def test_matches_torch(shape):
    """Every shape matches torch within the dtype's tolerance."""


def test_rejects_bad_input():
    pass


def helper():
    """Not a test."""
'''


def test_lists_shape_tables_and_tests(tmp_path):
    path = tmp_path / "test_matmul.py"
    path.write_text(TEST_SOURCE)
    text = it.coverage_text(path)
    assert "`SHAPES` in " in text and "`1 × 1 × 1`, `257 × 255 × 97`" in text
    assert "`TILE_SHAPES`" in text and "`16 × 16 × 16`" in text
    assert "`257 × 263 × 67` (primes)" in text
    assert "NOT_SHAPES" not in text and "dtype_shapes" not in text
    assert "Its 2 test functions:" in text
    assert "- matches torch: Every shape matches torch" in text
    assert "- rejects bad input" in text
    assert "helper" not in text


def test_a_missing_test_file_fails_naming_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="test_matmul.py"):
        it.coverage_text(tmp_path / "test_matmul.py")


def test_the_real_test_file_has_shape_tables_and_tests():
    text = it.coverage_text()
    assert "`SHAPES` in " in text and "test functions:" in text


def test_a_file_without_tests_fails(tmp_path):
    path = tmp_path / "test_matmul.py"
    path.write_text("SHAPES = [(1, 2, 3)]\n")
    with pytest.raises(ValueError, match="no test functions"):
        it.coverage_text(path)
