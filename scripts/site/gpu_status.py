"""Sentences about what evidence exists, for pages that must say it once.

``gpu_results_text()`` is the Benchmarks page's one statement of whether any
committed result comes from a GPU; every table below it then carries only its
short caption.
"""

from __future__ import annotations

from pathlib import Path

from evidence import ROOT
from evidence.benchmarks import load_results
from evidence.text import inert


def gpu_results_text(results_dir: Path | None = None, root: Path = ROOT) -> str:
    """Whether a GPU result is committed, and what the others are."""
    results = load_results(results_dir, root)
    gpu = [r for r in results if r.on_gpu]
    if not results:
        return "No benchmark result has been committed yet."
    if not gpu:
        return (
            f"No GPU result has been committed yet. The {len(results)} results "
            "below are CPU runs: they show that the harness works and that the "
            "kernels' values are right in Triton's interpreter, and they say "
            "nothing about speed on a GPU."
        )
    devices = sorted({inert(r.data["device"]["name"]) for r in gpu})
    return (
        f"{len(gpu)} of the {len(results)} results below come from a GPU "
        f"({', '.join(devices)}); the others are CPU runs, which check the "
        "harness and the kernels' values and say nothing about GPU speed."
    )


if __name__ == "__main__":
    print(gpu_results_text())
