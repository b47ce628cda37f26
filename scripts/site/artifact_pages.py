"""Compiled-artifact facts the pages show across compilers.

The CPU machines compile with one Triton (``results/artifacts/``), the GPU
machine runs another (``results/artifacts/triton-3.6/``, written by
``make artifacts-triton36``). This module lists where the two compilers'
output differs for the same source and launch: registers, shared memory,
spills, and the counts of the instruction families the lessons talk about.
"""

from __future__ import annotations

from pathlib import Path

from evidence import ResultFileError, read
from evidence.artifacts import ARTIFACTS, stem_counts
from evidence.tables import markdown_table

SECOND = ARTIFACTS / "triton-3.6"
#: Resource facts compared one to one.
RESOURCES = (
    ("registers", "registers per thread"),
    ("shared_bytes", "shared memory bytes"),
    ("spill_store_bytes", "spill stores (bytes)"),
    ("spill_load_bytes", "spill loads (bytes)"),
    ("local_bytes", "local memory bytes"),
)
#: SASS families the lessons name: tensor-core math, asynchronous and bulk
#: copies, shared-memory matrix loads, global loads and stores, barriers.
FAMILIES = ("HGMMA", "HMMA", "LDGSTS", "UTMALDG", "UBLKCP", "LDSM", "LDG", "STG")


def build_differences(first: dict, second: dict) -> list[tuple[str, str, str]]:
    """(fact, first value, second value) for each fact that differs."""
    rows = [
        (label, str(first.get(key, "—")), str(second.get(key, "—")))
        for key, label in RESOURCES
        if first.get(key) != second.get(key)
    ]
    ones, twos = (
        stem_counts(first["sass_opcodes"], FAMILIES),
        stem_counts(second["sass_opcodes"], FAMILIES),
    )
    for family in FAMILIES:
        if ones.get(family, 0) != twos.get(family, 0):
            rows.append(
                (
                    f"`{family}` instructions",
                    str(ones.get(family, 0)),
                    str(twos.get(family, 0)),
                )
            )
    return rows


def _pairs(first_dir: Path, second_dir: Path):
    for path in sorted(first_dir.glob("*.json")):
        other = second_dir / path.name
        if not other.is_file():
            continue
        yield read("artifact", path).data, read("artifact", other).data


def triton_differences_table(
    first_dir: Path = ARTIFACTS, second_dir: Path = SECOND
) -> str:
    """A table of every build whose facts differ between the two Tritons."""
    rows, versions = [], None
    try:
        pairs = list(_pairs(first_dir, second_dir))
    except ResultFileError as exc:
        raise ResultFileError(f"artifact comparison: {exc}") from None
    for one, two in pairs:
        versions = (one["triton_version"], two["triton_version"])
        builds = {b["build"]: b for b in two["builds"]}
        for build in one["builds"]:
            other = builds.get(build["build"])
            if other is None:
                continue
            for fact, a, b in build_differences(build, other):
                rows.append([f"`{one['kernel']}` {build['build']}", fact, a, b])
    if versions is None:
        return "No second set of artifacts is committed (`make artifacts-triton36`).\n"
    if not rows:
        return f"Triton {versions[0]} and {versions[1]} produce the same facts.\n"
    header = [
        "Kernel and build",
        "Fact",
        f"Triton {versions[0]}",
        f"Triton {versions[1]}",
    ]
    return markdown_table(header, rows) + "\n"


def same_facts_count(first_dir: Path = ARTIFACTS, second_dir: Path = SECOND) -> str:
    """How many builds compile to the same facts under both Tritons."""
    same = total = 0
    for one, two in _pairs(first_dir, second_dir):
        builds = {b["build"]: b for b in two["builds"]}
        for build in one["builds"]:
            if build["build"] in builds:
                total += 1
                same += not build_differences(build, builds[build["build"]])
    return f"{same} of {total}"
