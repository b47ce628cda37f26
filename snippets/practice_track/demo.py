"""Each practice exercise's tested solution, run once on a small input and
compared with torch (the pages under docs/kernels/practice/ show it in their
run box). Evidence kind: the Triton interpreter on a CPU, values only (run it with
``TRITON_INTERPRET=1``, as the run box says).

The grader (``python -m scripts.practice check``) is the real judge; this
file only shows, in a few lines, that every solution a page folds away runs.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import torch

PRACTICE = Path(__file__).resolve().parents[2] / "practice"


def solution(folder: str):
    """The module practice/<folder>/solution.py, loaded by its path."""
    path = PRACTICE / folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{folder}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def demos() -> dict[str, bool]:
    """Exercise name -> whether its solution matched torch on one input."""
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(1031, generator=g), torch.randn(1031, generator=g)
    a, b = torch.randn(33, 65, generator=g), torch.randn(65, 47, generator=g)
    rows = torch.randn(7, 100, generator=g)
    counts = torch.randint(0, 4, (3000,), generator=g, dtype=torch.int32)
    out = {}
    result = torch.empty(1031)
    solution("vector_add").vector_add(x, y, result)
    out["vector-add"] = torch.equal(result, x + y)
    result = torch.empty(7, 100)
    solution("row_softmax").row_softmax(rows, result)
    out["row-softmax"] = torch.allclose(result, rows.softmax(-1), atol=1e-6)
    result = torch.empty(33, 47)
    solution("matmul_tiled").matmul(a, b, result)
    out["matmul-tiled"] = torch.allclose(result, a @ b, atol=1e-4, rtol=1e-4)
    result = torch.empty(3000, dtype=torch.int32)
    solution("block_scan").cumsum(counts, result)
    out["block-scan"] = torch.equal(result, counts.cumsum(0).to(torch.int32))
    return out


if __name__ == "__main__":
    for name, matched in demos().items():
        print(f"{name}: the folded solution matches torch: {matched}")
