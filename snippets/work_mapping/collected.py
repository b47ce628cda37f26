"""The tests pytest collects for the work-mapping project.

docs/projects/work-mapping.md states how many there are, and lists them,
through build-time inserts, so the page cannot drift from
tests/snippets/work_mapping/. Collection runs in a child process, so the site build
keeps its own imports and environment; it costs about half a second.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
PROJECT_TESTS = "tests/snippets/work_mapping"


@functools.cache
def collected_test_ids(test_dir: str = PROJECT_TESTS) -> tuple[str, ...]:
    """Node ids pytest collects (each parametrized case on its own)."""
    if not (REPO_ROOT / test_dir).is_dir():
        raise FileNotFoundError(
            f"test_dir {test_dir!r} is not a folder under {REPO_ROOT}"
        )
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q"]
    # No cache: collecting must not write .pytest_cache during a site build.
    command += ["-p", "no:cacheprovider", test_dir]
    result = subprocess.run(
        command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    )
    ids = tuple(
        line for line in result.stdout.splitlines() if line.startswith(test_dir)
    )
    summary = re.search(r"^(\d+) tests? collected", result.stdout, re.MULTILINE)
    if result.returncode != 0 or summary is None or int(summary[1]) != len(ids):
        raise RuntimeError(
            f"pytest could not collect {test_dir} (exit {result.returncode}):\n"
            f"{result.stdout[-2000:]}{result.stderr[-2000:]}"
        )
    return ids


def collected_test_count(test_dir: str = PROJECT_TESTS) -> int:
    return len(collected_test_ids(test_dir))


def collected_test_list(test_dir: str = PROJECT_TESTS) -> str:
    """A Markdown list of the collected tests, grouped by file."""
    lines = []
    for node_id in collected_test_ids(test_dir):
        path, _, name = node_id.partition("::")
        lines.append(f"- `{name}` in `{path}`")
    return "\n".join(lines)


if __name__ == "__main__":
    print(f"{PROJECT_TESTS}: {collected_test_count()} tests collected")
    print(collected_test_list())
