"""scripts.bench.importers: the field reader and the version codes (the
whole mapping is exercised through the command in test_import_cli.py)."""

from __future__ import annotations

import pytest

from evidence import ResultFileError
from scripts.bench.importers import COLLECTIVES, field, nccl_version


def test_nccl_version_codes():
    assert nccl_version(22703) == "2.27.3"
    assert nccl_version(21602) == "2.16.2"
    assert nccl_version(2804) == "2.8.4"


def test_field_names_the_tool_field_and_refuses_bools_as_numbers():
    assert field({"a": 3}, "a", int, "f.json") == 3
    with pytest.raises(ResultFileError, match="field 'x.a': missing"):
        field({}, "a", int, "f.json", "x")
    with pytest.raises(ResultFileError, match="is not a number"):
        field({"a": True}, "a", (int, float), "f.json")
    with pytest.raises(ResultFileError, match="is not a number"):
        field({"a": "nan"}, "a", (int, float), "f.json")


def test_every_collective_binary_maps_to_one_the_site_models():
    from snippets.lib.collectives import COLLECTIVES as MODELLED

    assert sorted(COLLECTIVES.values()) == sorted(MODELLED)
