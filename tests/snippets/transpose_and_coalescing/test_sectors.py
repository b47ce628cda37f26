"""The lesson's worked example of sector counting (the model itself is
tested in tests/snippets/lib/test_sectors.py)."""

import pytest

from snippets.transpose_and_coalescing import sectors as s


def test_the_worked_example_names_its_values():
    assert s.facts()["ratio"] == "4.5"
    assert s.facts()["row-warp"] == "4" and s.facts()["column-warp"] == "32"
    with pytest.raises(KeyError, match="nope"):
        s.facts()["nope"]
