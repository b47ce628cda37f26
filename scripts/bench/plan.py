"""A job manifest for a cluster: ``python -m scripts.bench plan``.

Usage::

    python -m scripts.bench plan [KERNEL ...] [--profile P] [--device D]
                                 [--out manifest.json]
    python -m scripts.bench --manifest manifest.json --cell N [--out DIR]

The manifest lists independent cells, one per (kernel, shape, dtype, device
class) of the profile, numbered from 0, so that a SLURM array index, a
submitit map or a Ray task can each run one: ``--cell N`` measures that
cell alone (its own ceilings, its own seed) and writes an ordinary result
file, which records the manifest's sha256 and the cell's index. Merging is
the existing path: the files go through ``python -m scripts.bench.contribute``
(or into the folder the pages read), and ``evidence.benchmarks.load_results``
joins the cells of one complete manifest into one run's tables
(``merge_cells``). Nothing here schedules anything.
"""

from __future__ import annotations

import sys
from pathlib import Path

from evidence import ResultFileError, display_path, sha256_bytes
from evidence import write as write_checked
from evidence.method import PROFILES
from scripts.cli import OneLineParser

EXIT_OK, EXIT_USAGE = 0, 2
DEFAULT_OUT = Path("manifest.json")


def cells(descriptors: dict, profile: str, device: str) -> list[dict]:
    """One cell per kernel and shape of the profile, in the runner's order."""
    device_kind = "cpu" if device == "cpu" else "cuda"
    found = []
    for desc in descriptors.values():
        dtype = desc.dtype_cpu if device_kind == "cpu" else desc.dtype_cuda
        for shape in desc.shapes_for(profile, device_kind):
            found.append(
                {
                    "index": len(found),
                    "kernel": desc.name,
                    "shape": dict(shape),
                    "shape_text": desc.shape_text(shape),
                    "dtype": dtype,
                    "device_class": device_kind,
                }
            )
    return found


def manifest(descriptors: dict, profile: str, device: str) -> dict:
    found = cells(descriptors, profile, device)
    return {
        "schema_version": 1,
        "profile": profile,
        "device": device,
        "cells": found,
        "command": "python -m scripts.bench --manifest MANIFEST --cell INDEX",
    }


def cell_command(manifest_path, index: int, out, python: str = sys.executable):
    """The command one job runs for one cell (the recipes on
    docs/reference/contributing-a-result.md and the sharded test use it)."""
    return [
        str(python), "-m", "scripts.bench", "--manifest", str(manifest_path),
        "--cell", str(index), "--out", str(out), "--no-progress",
    ]  # fmt: skip


def read_cell(path: Path, index: int) -> tuple[dict, dict]:
    """(manifest's cell, what the result records of it), or ResultFileError."""
    from evidence import read

    loaded = read("plan", path)
    found = loaded.data["cells"]
    if not 0 <= index < len(found):
        raise ResultFileError(
            f"{display_path(path)}: no cell {index}; it has {len(found)} (0 to "
            f"{len(found) - 1})"
        )
    record = {
        "plan_sha256": sha256_bytes(loaded.raw),
        "index": index,
        "cells": len(found),
    }
    return {**found[index], "profile": loaded.data["profile"]}, record


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = OneLineParser(
        tool="plan",
        exit_code=EXIT_USAGE,
        prog="python -m scripts.bench plan",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("kernels", nargs="*", metavar="KERNEL")
    parser.add_argument("--profile", choices=PROFILES, default="quick")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    from kernels.descriptor import discover

    present = discover()
    unknown = [name for name in args.kernels if name not in present]
    if unknown:
        print(f"plan: unknown kernel(s) {', '.join(unknown)}", file=sys.stderr)
        return EXIT_USAGE
    chosen = {n: present[n] for n in args.kernels or present}
    data = manifest(chosen, args.profile, args.device)
    if not data["cells"]:
        print(f"plan: the {args.profile} profile has no shapes", file=sys.stderr)
        return EXIT_USAGE
    write_checked("plan", args.out, data)
    print(f"plan: wrote {len(data['cells'])} cells to {display_path(args.out)}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
