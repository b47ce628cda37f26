"""Every project kernel's cost model at its GPU benchmark shapes, as data.

The cost functions live in ``kernels/<op>.py``, which import torch and
Triton; the site build imports neither. So this script evaluates each
kernel's ``DESCRIPTOR.bytes_moved`` and ``DESCRIPTOR.flops`` once and writes
the numbers to ``kernel_costs.json`` next to it, and the roofline page reads
that file. ``tests/snippets/napkin_math_and_the_roofline/test_kernel_costs.py``
recomputes it and fails, naming this command, when a kernel's model changed:

    python -m snippets.napkin_math_and_the_roofline.kernel_costs --write
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

COSTS_PATH = Path(__file__).with_name("kernel_costs.json")
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


def write(path: Path = COSTS_PATH) -> None:
    path.write_text(json.dumps(compute_costs(), indent=1) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    if "--write" in argv:
        write()
    fresh = compute_costs() == committed()
    table = committed()
    points = sum(len(entry["points"]) for entry in table.values())
    print(f"{len(table)} kernels, {points} benchmark shapes")
    print("kernel_costs.json is " + ("up to date" if fresh else "STALE: run --write"))
    return 0 if fresh else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
