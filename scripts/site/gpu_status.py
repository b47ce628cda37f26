"""What evidence exists, counted, for the pages that must say it once.

``facts()`` gives the Benchmarks page the number of committed results and
how many came from a GPU; the page's sentence around them is Markdown, and
tests/scripts/site/test_gpu_status.py fails when a GPU result is committed
while the page still says none is.
"""

from __future__ import annotations

from pathlib import Path

from evidence import ROOT
from evidence.benchmarks import load_results
from evidence.text import inert


def gpu_status(results_dir: Path | None = None, root: Path = ROOT) -> dict:
    """How many results are committed, how many from a GPU, and the GPUs."""
    results = load_results(results_dir, root)
    gpu = [r for r in results if r.on_gpu]
    devices = sorted({inert(r.data["device"]["name"]) for r in gpu})
    return {"results": len(results), "gpu": len(gpu), "devices": devices}


def facts() -> dict[str, str]:
    """The committed results' counts, for the Benchmarks page's sentence."""
    status = gpu_status()
    return {
        "results": f"{status['results']}",
        "gpu-results": f"{status['gpu']}",
        "gpus": ", ".join(status["devices"]) or "none",
    }


if __name__ == "__main__":
    print(facts())
