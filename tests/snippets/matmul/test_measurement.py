"""The generated reading of the matmul measurement."""

from snippets.matmul import measurement


def test_reading_without_a_result_says_not_measured():
    assert "No GPU measurement" in measurement.reading()
