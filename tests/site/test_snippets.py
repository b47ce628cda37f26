"""Every snippet file runs as shown, and every snippet section is shown on
some page: no orphaned code, no untested code."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.site.run_boxes import RECORD_SUFFIX
from tests.helpers.shared import once_per_session
from tests.site.sitebuild import ROOT

SECTION_RE = re.compile(r"#\s*-{1,}8<-{1,}\s*\[start:(?P<name>[a-z][-_0-9a-z]*)\]")
INCLUDE_RE = re.compile(r'-{1,}8<-{1,}\s+"(?P<target>[^"]+)"')
SOURCE_DIRS = ("snippets", "kernels", "evidence")


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
# file (that import was most of this test's time). What each prints is kept:
# the "Run it yourself" boxes show it.
RUN_ALL = """
import contextlib, io, json, runpy, sys, traceback
failures, outputs = {}, {}
paths = sys.argv[1:]
for path in paths:
    buffer = io.StringIO()
    sys.argv = [path]  # each file runs as `python FILE`, with no arguments
    try:
        with contextlib.redirect_stdout(buffer):
            runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (0, None):
            failures[path] = f"exited with {exc.code!r}"
    except BaseException:
        failures[path] = traceback.format_exc()[-3000:]
    outputs[path] = buffer.getvalue()
print(json.dumps({"failures": failures, "outputs": outputs}))
"""


def tracked_hashes(root: Path = ROOT) -> dict[str, str]:
    """sha256 of every file git tracks under the folders a snippet could
    write to (a snippet run plainly must write nothing: its record is
    rewritten only with --write)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "snippets", "results", "kernels", "docs"],
        cwd=root, capture_output=True, timeout=60,
    )  # fmt: skip
    names = listed.stdout.decode().split("\0") if listed.returncode == 0 else []
    return {
        name: hashlib.sha256((root / name).read_bytes()).hexdigest()
        for name in names
        if name and (root / name).is_file()
    }


def changed_files(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(
        n for n in before.keys() | after.keys() if before.get(n) != after.get(n)
    )


def run_snippets(paths: list[str]) -> dict[str, dict[str, str]]:
    """{"failures": {path: what went wrong}, "outputs": {path: its stdout},
    "changed": [tracked files the runs rewrote]}."""
    env = dict(os.environ, TRITON_INTERPRET="1", MPLBACKEND="Agg")
    before = tracked_hashes()
    result = subprocess.run(
        [sys.executable, "-c", RUN_ALL, *paths],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout.strip().splitlines()[-1])
    found["changed"] = changed_files(before, tracked_hashes())
    return found


@pytest.fixture(scope="module")
def snippet_runs(tmp_path_factory) -> dict[str, dict[str, str]]:
    paths = snippet_files()
    assert paths, "no snippet files found"
    # Once per session, whichever xdist worker asks first.
    return once_per_session(
        tmp_path_factory, "snippet-runs", lambda: run_snippets(paths)
    )


def test_every_snippet_file_runs_as_a_script(snippet_runs):
    failures = snippet_runs["failures"]
    assert not failures, "\n\n".join(f"{p} failed:\n{e}" for p, e in failures.items())


def test_running_the_snippets_rewrites_no_committed_file(snippet_runs):
    # A record is rewritten on purpose (`--write`), never by a plain run: a
    # suite that edits the checkout leaves a diff nobody made.
    assert not snippet_runs["changed"], snippet_runs["changed"]


def test_a_rewritten_file_is_seen(tmp_path):
    (tmp_path / "snippets").mkdir()
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    record = tmp_path / "snippets" / "record.json"
    record.write_text("1")
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True, timeout=60)
    before = tracked_hashes(tmp_path)
    record.write_text("2")
    assert changed_files(before, tracked_hashes(tmp_path)) == ["snippets/record.json"]


def test_recorded_run_outputs_match_what_the_files_print(snippet_runs):
    # A "Run it yourself" box for a module that imports torch shows its
    # recorded output (the build imports no torch): it must still be true.
    stale = []
    for record in sorted((ROOT / "snippets").rglob("*" + RECORD_SUFFIX)):
        module = record.as_posix().removesuffix(RECORD_SUFFIX) + ".py"
        path = Path(module).relative_to(ROOT).as_posix()
        printed = snippet_runs["outputs"].get(path)
        if printed is None:
            stale.append(f"{record.relative_to(ROOT)}: no module {path} ran")
        elif printed != record.read_text(encoding="utf-8"):
            stale.append(
                f"{record.relative_to(ROOT)} differs from what {path} prints now; "
                f"re-record: .venv/bin/python -m scripts.site.run_boxes {path}"
            )
    assert not stale, "\n".join(stale)


def test_a_failing_snippet_is_reported(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("raise ValueError('known-broken')\n")
    quits = tmp_path / "quits.py"
    quits.write_text("import sys\nsys.exit(3)\n")
    fine = tmp_path / "fine.py"
    fine.write_text("print('fine')\n")
    run = run_snippets([str(broken), str(quits), str(fine)])
    failures = run["failures"]
    assert set(failures) == {str(broken), str(quits)}
    assert "known-broken" in failures[str(broken)]
    assert "3" in failures[str(quits)]
    assert run["outputs"][str(fine)] == "fine\n"


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
    fake = "snippets/lib/amdahl.py:never-included"
    assert fake not in included_targets()
    assert {fake} - included_targets() == {fake}
