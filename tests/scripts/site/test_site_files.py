"""scripts/site/site_files.py: which providers run, and their files written."""

import pytest
from properdocs.exceptions import PluginError

from scripts.site import site_files


class Ready:
    def __init__(self, value):
        self.value = value

    def get(self):
        if isinstance(self.value, Exception):
            raise self.value
        return self.value


def test_only_providers_some_page_names_are_drawn(tmp_path):
    (tmp_path / "a.md").write_text("<!-- insert: scripts/site/bench_pages.py:x() -->")
    providers = [
        ("p.py", "f", "scripts/site/bench_pages.py"),
        ("q.py", "g", "other.py"),
    ]
    assert site_files.providers_used(tmp_path, providers) == [providers[0]]


def test_files_are_written_and_a_result_file_failure_is_one_line(tmp_path):
    site_files.write(tmp_path, [Ready({"bench/x.svg": "<svg/>", "raw.json": b"{}"})])
    assert (tmp_path / "bench" / "x.svg").read_text() == "<svg/>"

    class ResultFileError(ValueError):
        pass

    with pytest.raises(PluginError, match="results/bench/bad.json: field"):
        site_files.write(
            tmp_path, [Ready(ResultFileError("results/bench/bad.json: field"))]
        )
