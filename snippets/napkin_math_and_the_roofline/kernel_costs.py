"""Every project kernel's cost model at its GPU benchmark shapes, as data.

The cost functions live in ``kernels/<op>.py``, which import torch and
Triton; the site build imports neither. So this script evaluates each
kernel's ``DESCRIPTOR.bytes_moved`` and ``DESCRIPTOR.flops`` once and writes
the numbers to ``kernel_costs.json`` next to it, and the roofline page reads
that file. ``tests/snippets/napkin_math_and_the_roofline/test_kernel_costs.py``
recomputes it and fails, naming this command, when a kernel's model changed:

    python -m snippets.napkin_math_and_the_roofline.kernel_costs --write

Writing also records ``kernel_costs.sha256``: a digest of every file the
costs are computed from (``kernels/*.py`` and this script) together with the
table itself. While that digest still matches, the table is what
``compute_costs()`` returned for exactly these sources, so the freshness test
can skip importing torch; once any of them changes, it recomputes.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

COSTS_PATH = Path(__file__).with_name("kernel_costs.json")
STAMP_PATH = Path(__file__).with_name("kernel_costs.sha256")
KERNELS_DIR = Path(__file__).resolve().parents[2] / "kernels"
ITEMSIZE = {"bfloat16": 2, "float16": 2, "float32": 4}


# --8<-- [start:costs]
def compute_costs(profile: str = "full") -> dict:
    """{kernel: {"title", "dtype", "metric", "points": [{"shape", "bytes",
    "flops", "quick"}]}}
    from each kernel's own descriptor, at its GPU benchmark dtype."""
    from kernels.descriptor import discover  # imports torch and Triton

    costs = {}
    for name, desc in discover().items():
        itemsize = ITEMSIZE[desc.dtype_cuda]
        quick = list(desc.shapes_for("quick", "cuda"))
        costs[name] = {
            "title": desc.title,
            "dtype": desc.dtype_cuda,
            "metric": desc.metric,  # "flops": tensor-core work; "bandwidth"
            "points": [
                {
                    "shape": desc.shape_text(shape),
                    "bytes": int(desc.bytes_moved(shape, itemsize)),
                    "flops": int(desc.flops(shape)),
                    "quick": shape in quick,  # the one representative shape
                }
                for shape in desc.shapes_for(profile, "cuda")
            ],
        }
    return costs


# --8<-- [end:costs]


def committed() -> dict:
    """The committed table (no torch needed)."""
    return json.loads(COSTS_PATH.read_text(encoding="utf-8"))


def sources_digest(costs: dict) -> str:
    """sha256 over the cost sources (kernels/*.py, this file) and `costs`."""
    digest = hashlib.sha256()
    for path in [*sorted(KERNELS_DIR.glob("*.py")), Path(__file__)]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(json.dumps(costs, sort_keys=True).encode())
    return digest.hexdigest()


def stamp_matches() -> bool:
    """True when the committed table was written from the sources as they
    are now (then it equals compute_costs() without importing torch)."""
    if not STAMP_PATH.exists():
        return False
    return STAMP_PATH.read_text(encoding="utf-8").strip() == sources_digest(committed())


def write(path: Path = COSTS_PATH, stamp: Path = STAMP_PATH) -> None:
    costs = compute_costs()
    path.write_text(json.dumps(costs, indent=1) + "\n", encoding="utf-8")
    stamp.write_text(sources_digest(costs) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    if "--write" in argv:
        write()
    fresh = compute_costs() == committed()
    table = committed()
    points = sum(len(entry["points"]) for entry in table.values())
    print(f"{len(table)} kernels, {points} benchmark shapes")
    print("kernel_costs.json is " + ("up to date" if fresh else "STALE: run --write"))
    if fresh and not stamp_matches():
        print("kernel_costs.sha256 is stale (the test recomputes): run --write")
    return 0 if fresh else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
