"""snippets/work_mapping/collected.py: the count and list the work-mapping
page shows are what pytest collects from the models' tests, wherever they
live, and every broken variant's test is among them."""

import re
import subprocess
import sys

import pytest

from snippets.work_mapping import collected


def test_count_equals_a_fresh_collection():
    # An independent collection, read from pytest's own summary line rather
    # than from the node ids collected.py counts (about a second).
    fresh = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q"]
        + ["-p", "no:cacheprovider", *collected.PROJECT_TESTS],
        cwd=collected.REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only
    )
    summary = re.search(r"^(\d+) tests? collected", fresh.stdout, re.MULTILINE)
    assert fresh.returncode == 0 and summary, fresh.stdout[-2000:]
    count = collected.collected_test_count()
    assert count == int(summary[1])
    assert count >= 13  # the project's promise: at least the seed's 13
    ids = collected.collected_test_ids()
    assert len(set(ids)) == count
    assert (
        "tests/snippets/work_mapping/test_collected.py::"
        + ("test_count_equals_a_fresh_collection")
        in ids
    )


def test_list_has_one_line_per_test():
    lines = collected.collected_test_list().splitlines()
    assert len(lines) == collected.collected_test_count()
    first = collected.collected_test_ids()[0]
    path, _, name = first.partition("::")
    assert lines[0] == f"- `{name}` in `{path}`"


def test_a_folder_that_is_not_there_is_named():
    # Known-wrong: a folder that does not exist fails before any collection.
    with pytest.raises(FileNotFoundError, match="no_such_tests"):
        collected.collected_test_ids("tests/no_such_tests")


def test_every_broken_variant_is_named_with_a_collected_test():
    table = collected.broken_variant_table()
    assert table.count("\n") == 2 + len(collected.BROKEN)
    for what, _function, test in collected.BROKEN:
        assert what in table and test.partition("::")[2] in table


def test_a_broken_variant_whose_test_is_gone_stops_the_build(monkeypatch):
    # Known-wrong: a variant named with a test pytest does not collect.
    gone = (
        (
            "a ghost",
            "snippets/lib/waves.py:x",
            "tests/snippets/lib/test_waves.py::nope",
        ),
    )
    monkeypatch.setattr(collected, "BROKEN", gone)
    with pytest.raises(RuntimeError, match="nope"):
        collected.broken_variant_table()
