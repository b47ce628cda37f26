"""results/kernels.json against the kernel descriptors (scripts/catalog/__init__.py),
and its schema. The command line is tested in test_main.py."""

import copy

import pytest

import evidence
from scripts.catalog import PATH, catalog


@pytest.fixture(scope="module")
def expected() -> dict:
    return catalog()


def test_committed_catalog_is_current(expected):
    committed = PATH.read_text("utf-8") if PATH.is_file() else ""
    assert committed == evidence.dumps(expected), (
        "results/kernels.json is out of date: run make catalog"
    )


def test_committed_catalog_validates():
    loaded = evidence.read("catalog", PATH)
    assert loaded.data["schema_version"] == 1
    assert loaded.data["kernels"]


def test_every_descriptor_is_listed(expected):
    from kernels.descriptor import discover

    assert list(expected["kernels"]) == list(discover())


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda d: d.update(extra=1), id="unknown-top-level-field"),
        pytest.param(lambda d: d.update(schema_version=2), id="wrong-version"),
        pytest.param(
            lambda d: d["kernels"]["matmul"]["goals"][0]["must"][0].update(
                at_least=-1.0
            ),
            id="negative-goal",
        ),
        pytest.param(
            lambda d: d["kernels"]["softmax"].update(metric="speed"),
            id="unknown-metric",
        ),
        pytest.param(
            lambda d: d["kernels"]["scan"]["shapes"]["cpu"].pop("tiny"),
            id="missing-profile",
        ),
    ],
)
def test_schema_rejects_a_spoiled_catalog(expected, spoil):
    data = copy.deepcopy(expected)
    spoil(data)
    with pytest.raises(evidence.ResultFileError, match="kernels.json"):
        evidence.validate("catalog", data, "results/kernels.json")


def test_reading_rejects_non_finite_numbers(tmp_path, expected):
    text = evidence.dumps(expected).replace('"at_least": 0.8,', '"at_least": NaN,', 1)
    assert "NaN" in text
    path = tmp_path / "kernels.json"
    path.write_text(text, "utf-8")
    with pytest.raises(evidence.ResultFileError, match="non-finite"):
        evidence.read("catalog", path)
