"""The tests pytest collects for the work-mapping project.

docs/projects/work-mapping.md states how many there are, lists them and
names the test that rejects each broken variant, through build-time
inserts, so the page cannot drift from the tests (the models' own files in
tests/snippets/lib/ and tests/snippets/work_mapping/). Collection runs in
a child process, so the site build keeps its own imports and environment.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

from evidence.tables import markdown_table

REPO_ROOT = Path(__file__).resolve().parents[2]
#: Where the tests of the project's models live: each model's own file in
#: tests/snippets/lib/ (the models are shared lesson code) and the project's
#: folder (bad input, this collection).
PROJECT_TESTS = (
    "tests/snippets/lib/test_waves.py",
    "tests/snippets/lib/test_wave_figure.py",
    "tests/snippets/lib/test_transpose_offsets.py",
    "tests/snippets/lib/test_scan_carries.py",
    "tests/snippets/lib/test_softmax_merge.py",
    "tests/snippets/work_mapping",
)
#: Each broken variant the page shows: (what it gets wrong, the model's
#: function, the test that rejects it).
BROKEN = (
    (
        "the floor-divided grid",
        "snippets/lib/waves.py:blocks_floor_divided",
        "tests/snippets/lib/test_waves.py::test_floor_divided_grid_leaves_tail_unowned",
    ),
    (
        "the reused stride",
        "snippets/lib/transpose_offsets.py:mistaken_output_layout",
        "tests/snippets/lib/test_transpose_offsets.py::"
        "test_lane_assignment_owns_each_output_once",
    ),
    (
        "the missing carry",
        "snippets/lib/scan_carries.py:offsets_missing_carry",
        "tests/snippets/lib/test_scan_carries.py::"
        "test_missing_carry_produces_overlapping_writes",
    ),
    (
        "the merge without rescaling",
        "snippets/lib/softmax_merge.py:merge_without_rescaling",
        "tests/snippets/lib/test_softmax_merge.py::"
        "test_merge_without_rescaling_is_rejected",
    ),
)


@functools.cache
def collected_test_ids(paths: tuple[str, ...] | str = PROJECT_TESTS) -> tuple[str, ...]:
    """Node ids pytest collects from `paths` (each parametrized case on its
    own)."""
    paths = (paths,) if isinstance(paths, str) else tuple(paths)
    for path in paths:
        if not (REPO_ROOT / path).exists():
            raise FileNotFoundError(f"{path!r} is not under {REPO_ROOT}")
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q"]
    # No cache: collecting must not write .pytest_cache during a site build.
    command += ["-p", "no:cacheprovider", *paths]
    result = subprocess.run(
        command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    )
    ids = tuple(line for line in result.stdout.splitlines() if line.startswith(paths))
    summary = re.search(r"^(\d+) tests? collected", result.stdout, re.MULTILINE)
    if result.returncode != 0 or summary is None or int(summary[1]) != len(ids):
        raise RuntimeError(
            f"pytest could not collect {', '.join(paths)} "
            f"(exit {result.returncode}):\n"
            f"{result.stdout[-2000:]}{result.stderr[-2000:]}"
        )
    return ids


def collected_test_count(paths: tuple[str, ...] | str = PROJECT_TESTS) -> int:
    return len(collected_test_ids(paths))


def collected_test_list(paths: tuple[str, ...] | str = PROJECT_TESTS) -> str:
    """A Markdown list of the collected tests, grouped by file."""
    lines = []
    for node_id in collected_test_ids(paths):
        path, _, name = node_id.partition("::")
        lines.append(f"- `{name}` in `{path}`")
    return "\n".join(lines)


def broken_variant_table(paths: tuple[str, ...] | str = PROJECT_TESTS) -> str:
    """Each broken variant, its function and the test that rejects it; a
    test that pytest does not collect stops the build."""
    ids = collected_test_ids(paths)
    rows = []
    for what, function, test in BROKEN:
        if not any(i == test or i.startswith(test + "[") for i in ids):
            raise RuntimeError(f"{test} (which rejects {what}) is not collected")
        path, _, name = test.partition("::")
        rows.append([what, f"`{function}`", f"`{name}` in `{path}`"])
    header = ["broken variant", "in the model", "the test that rejects it"]
    return markdown_table(header, rows, escape=False) + "\n"


def fmt_test_dirs() -> str:
    return ", ".join(f"`{p}`" for p in PROJECT_TESTS)


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "test-dirs": fmt_test_dirs(),
    }


def facts() -> dict[str, str]:
    """Every value the page states, formatted, by name."""
    return page_facts()


if __name__ == "__main__":
    print(f"{collected_test_count()} tests collected")
    print(collected_test_list())
