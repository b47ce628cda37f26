"""Benchmark result files: load, pick the newest, tell whether it is stale.

The one place that decides which result a page shows: the Benchmarks page,
the lessons' tables and the decision memo all pick through ``newest``, from
files read through ``evidence.read`` and the method's cross-field
checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evidence import (
    ROOT,
    ResultFileError,
    current_sources,
    display_path,
    read,
    stale_changes,
)
from evidence.method import check_consistency, parse_utc

RESULTS_DIR = ROOT / "results" / "bench"
#: The kernel catalog, relative to the checkout: a result may only name its keys.
CATALOG = Path("results") / "kernels.json"


@dataclass(frozen=True)
class Result:
    """One validated benchmark result file."""

    path: Path
    name: str
    raw: bytes
    sha256: str
    data: dict

    @property
    def on_gpu(self) -> bool:
        return self.data["identity"]["device_kind"] == "cuda"

    @property
    def started(self) -> str:
        return self.data["identity"]["started_utc"]

    @property
    def profile(self) -> str:
        return self.data["identity"]["profile"]


def known_kernels(root: Path = ROOT) -> frozenset[str]:
    """The kernels the project has: the catalog's keys (``root``'s
    results/kernels.json, read and validated like any data file)."""
    path = Path(root) / CATALOG
    if not path.exists():
        raise ResultFileError(
            f"{display_path(path, root)}: missing, so result files' kernel "
            "names cannot be checked (`make catalog` writes it)"
        )
    return frozenset(read("catalog", path, root).data["kernels"])


def load_result(path: Path, root: Path = ROOT) -> Result:
    """One result file, validated against the schema, the kernel catalog and
    the method's cross-field rules, or ResultFileError naming the file and
    field."""
    loaded = read("bench", path, root)
    check_consistency(loaded.data, display_path(path, root), known_kernels(root))
    return Result(Path(path), loaded.name, loaded.raw, loaded.sha256, loaded.data)


def load_results(results_dir: Path | None = None, root: Path = ROOT) -> list[Result]:
    """Every result file, oldest first (by start time, then name). Each goes
    through ``load_result`` and so ``read``, which refuses a directory or a
    symlink named *.json."""
    folder = Path(results_dir) if results_dir is not None else RESULTS_DIR
    if not folder.is_dir():
        return []
    results = [load_result(p, root) for p in sorted(folder.glob("*.json"))]
    # Dates were checked on load; compare them as times, not as text.
    return sorted(results, key=lambda r: (parse_utc(r.started), r.name))


def newest(
    results: list[Result],
    kernel: str,
    *,
    profile: str | None = None,
    on_gpu: bool | None = None,
) -> Result | None:
    """The newest result holding ``kernel`` (of ``profile``, if given): a GPU
    one whenever any exists, unless ``on_gpu`` asks for one kind only."""
    holding = [
        r
        for r in results
        if kernel in r.data["kernels"] and profile in (None, r.profile)
    ]
    if on_gpu is not None:
        holding = [r for r in holding if r.on_gpu == on_gpu]
    gpu = [r for r in holding if r.on_gpu]
    pool = gpu or holding
    return pool[-1] if pool else None


def newest_per_device(results: list[Result], kernel: str) -> list[Result]:
    """The newest result holding ``kernel`` from each GPU device, ordered by
    device name; the newest CPU result alone when no GPU ran it. Each file's
    ratios stay its own: results from two devices are shown side by side,
    never combined."""
    by_device: dict[str, Result] = {}
    for result in results:  # oldest first, so the newest of each wins
        if kernel in result.data["kernels"] and result.on_gpu:
            by_device[result.data["device"]["name"]] = result
    if by_device:
        return [by_device[name] for name in sorted(by_device)]
    cpu = newest(results, kernel, on_gpu=False)
    return [cpu] if cpu else []


def stale_sources(result: Result, kernel: str, root: Path = ROOT) -> list[dict]:
    """The kernel's source files that changed since the run (empty: the
    result describes the code as it is now)."""
    recorded = result.data["kernels"][kernel]["sources"]
    return stale_changes(recorded, current_sources(kernel, root))
