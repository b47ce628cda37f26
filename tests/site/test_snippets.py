"""Every snippet file runs as shown, and every snippet section is shown on
some page: no orphaned code, no untested code."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.site.sitebuild import ROOT

SECTION_RE = re.compile(r"#\s*-{1,}8<-{1,}\s*\[start:(?P<name>[a-z][-_0-9a-z]*)\]")
INCLUDE_RE = re.compile(r'-{1,}8<-{1,}\s+"(?P<target>[^"]+)"')
SOURCE_DIRS = ("snippets", "kernels")


def snippet_files() -> list[str]:
    return sorted(
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "snippets").rglob("*.py")
        if path.name != "__init__.py" and "__pycache__" not in path.parts
    )


def declared_sections() -> set[str]:
    found = set()
    for folder in SOURCE_DIRS:
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            for match in SECTION_RE.finditer(path.read_text(encoding="utf-8")):
                found.add(f"{rel}:{match['name']}")
    return found


def included_targets() -> set[str]:
    targets = set()
    for path in (ROOT / "docs").rglob("*"):
        if path.suffix in (".md", ".ipynb"):
            targets.update(
                m["target"]
                for m in INCLUDE_RE.finditer(path.read_text(encoding="utf-8"))
            )
    return targets


@pytest.mark.parametrize("path", snippet_files())
def test_snippet_file_runs_as_a_script(path):
    env = dict(os.environ, TRITON_INTERPRET="1", MPLBACKEND="Agg")
    result = subprocess.run(
        [sys.executable, path],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"{path} failed:\n{result.stderr[-3000:]}"


def test_every_snippet_section_is_included_by_a_page():
    orphans = sorted(declared_sections() - included_targets())
    assert not orphans, f"sections no page includes: {orphans}"


def test_every_include_names_a_declared_section_or_whole_file():
    declared = declared_sections()
    for target in included_targets():
        path, _, section = target.partition(":")
        assert (ROOT / path).is_file(), f"pages include missing file {path}"
        if section:
            assert target in declared, f"pages include missing section {target}"


def test_the_orphan_check_can_fail():
    # A section no page includes must be reported: prove the check is live.
    fake = "snippets/connect_kernel_work_to_the_service/amdahl.py:never-included"
    assert fake not in included_targets()
    assert {fake} - included_targets() == {fake}
