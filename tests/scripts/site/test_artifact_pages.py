"""Where the two Tritons' compiled output differs, from committed artifacts."""

import json
import shutil

from evidence.artifacts import stem_counts
from scripts.site import artifact_pages


def test_family_counts_sum_opcodes_by_family():
    counts = stem_counts(
        {"HGMMA.64x256x16.F32.BF16": 4, "HGMMA.64x128x16.F32.BF16": 2, "IADD3": 9},
        artifact_pages.FAMILIES,
    )
    assert counts == {"HGMMA": 6}


def test_only_differing_facts_are_listed():
    one = {"registers": 40, "shared_bytes": 0, "sass_opcodes": {"LDG.E.128": 2}}
    two = {"registers": 32, "shared_bytes": 0, "sass_opcodes": {"LDG.E.64": 4}}
    rows = artifact_pages.build_differences(one, two)
    assert rows == [
        ("registers per thread", "40", "32"),
        ("`LDG` instructions", "2", "4"),
    ]


def test_the_committed_table_names_both_versions():
    text = artifact_pages.triton_differences_table()
    assert "| Kernel and build | Fact | Triton 3.8" in text
    assert "Triton 3.6" in text


def test_without_a_second_set_the_table_says_how_to_make_it(tmp_path):
    text = artifact_pages.triton_differences_table(second_dir=tmp_path)
    assert "make artifacts-triton36" in text


def test_identical_builds_are_counted_the_same(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    source = artifact_pages.ARTIFACTS / "reduction.sm_90a.json"
    shutil.copy(source, first / source.name)
    shutil.copytree(first, second)
    builds = len(json.loads(source.read_text())["builds"])
    assert artifact_pages.same_facts_count(first, second) == f"{builds} of {builds}"
