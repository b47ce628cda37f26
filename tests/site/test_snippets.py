"""Every snippet file runs as shown, and every snippet section is shown on
some page: no orphaned code, no untested code."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

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


# Runs every snippet file as `__main__` in one fresh interpreter: each file
# behaves as `python FILE` would, and torch is imported once, not once per
# file (that import was most of this test's time).
RUN_ALL = """
import contextlib, io, json, runpy, sys, traceback
failures = {}
for path in sys.argv[1:]:
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (0, None):
            failures[path] = f"exited with {exc.code!r}"
    except BaseException:
        failures[path] = traceback.format_exc()[-3000:]
print(json.dumps(failures))
"""


def run_snippets(paths: list[str]) -> dict[str, str]:
    """{path: what went wrong} for every file that failed as a script."""
    env = dict(os.environ, TRITON_INTERPRET="1", MPLBACKEND="Agg")
    result = subprocess.run(
        [sys.executable, "-c", RUN_ALL, *paths],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_every_snippet_file_runs_as_a_script():
    paths = snippet_files()
    assert paths, "no snippet files found"
    failures = run_snippets(paths)
    assert not failures, "\n\n".join(f"{p} failed:\n{e}" for p, e in failures.items())


def test_a_failing_snippet_is_reported(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("raise ValueError('known-broken')\n")
    quits = tmp_path / "quits.py"
    quits.write_text("import sys\nsys.exit(3)\n")
    fine = tmp_path / "fine.py"
    fine.write_text("print('fine')\n")
    failures = run_snippets([str(broken), str(quits), str(fine)])
    assert set(failures) == {str(broken), str(quits)}
    assert "known-broken" in failures[str(broken)]
    assert "3" in failures[str(quits)]


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
