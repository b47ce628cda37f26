"""Add a result file measured on your own GPU: ``python -m scripts.bench.contribute``.

Usage::

    python -m scripts.bench.contribute PATH [PATH ...] [--results DIR]

The file goes through exactly what the build runs: it is loaded with the
files already in the folder by the one loader every page uses
(``evidence.benchmarks.load_results``: the schema, the kernel catalog,
printable text, dates, device, probe and datasheet bounds, kernel hashes
against the commit, one file per run). The pages show whatever that loader
accepts (a missing row says "not measured"; tests/evidence/
test_hostile_contributions.py renders every page from hostile folders), so a
file accepted here cannot break the build. It must come from a GPU and is then copied
under a name made from its own identity. Nothing else is written
(docs/reference/contributing-a-result.md says what is checked). The
Benchmarks page shows it beside other devices' results, never mixed into
their ratios. Exit 0 on success, 2 with one line saying what is
wrong.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

from evidence import ROOT, ResultFileError, display_path, sha256_file, slug
from evidence.benchmarks import load_result, load_results
from scripts.cli import OneLineParser

EXIT_OK, EXIT_REFUSED = 0, 2
DEFAULT_DIR = ROOT / "results" / "bench"


def target_name(data: dict) -> str:
    """<start>-<device>-<profile>-<commit>.json, from the file's identity:
    only letters, digits, dots and hyphens, whatever the file says."""
    identity = data["identity"]
    started = re.sub(r"[^0-9]", "", identity["started_utc"])[:14]
    commit = re.sub(r"[^0-9a-f]", "", str(identity["commit"]))[:7]
    parts = [started, slug(data["device"]["name"]), slug(identity["profile"])]
    cell = identity.get("cell")  # the jobs of one manifest may start together
    last = [f"cell{int(cell['index'])}"] if cell else []
    return "-".join(p for p in [*parts, commit or "nocommit", *last] if p) + ".json"


def contribute(path: Path, results: Path = DEFAULT_DIR, root: Path = ROOT) -> Path:
    """Check one file and copy it into ``results``; ResultFileError if not."""
    result = load_result(path, root)  # every check on the file alone
    shown = display_path(path, root)
    if not result.on_gpu:
        raise ResultFileError(
            f"{shown}: a CPU run; only GPU results are published as contributions"
        )
    results.mkdir(parents=True, exist_ok=True)
    for existing in sorted(results.glob("*.json")):
        if existing.is_file() and sha256_file(existing) == result.sha256:
            raise ResultFileError(f"{shown}: already in {existing.name}")
    load_results(results, root, adding=path)  # and beside the files there
    target = results / target_name(result.data)
    if target.exists():
        raise ResultFileError(f"{shown}: {target.name} exists already; not replaced")
    # Written next to its final name, then renamed: never a half-written file.
    handle, temporary = tempfile.mkstemp(dir=results, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(result.raw)
        os.link(temporary, target)  # fails, rather than replaces, if it exists
    finally:
        os.unlink(temporary)
    return target


def main(argv=None) -> int:
    parser = OneLineParser(
        tool="contribute",
        exit_code=EXIT_REFUSED,
        prog="python -m scripts.bench.contribute",
        description=__doc__,
    )
    parser.add_argument("paths", type=Path, nargs="+", metavar="PATH")
    parser.add_argument("--results", type=Path, default=DEFAULT_DIR)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    status = EXIT_OK
    for path in args.paths:  # each file stands or falls on its own
        try:
            target = contribute(path, args.results)
        except ResultFileError as exc:
            print(f"contribute: refused: {exc}", file=sys.stderr)
            status = EXIT_REFUSED
            continue
        except OSError as exc:
            print(f"contribute: could not write: {exc.strerror}", file=sys.stderr)
            status = EXIT_REFUSED
            continue
        print(f"contribute: accepted as {display_path(target, ROOT)}; commit it")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
