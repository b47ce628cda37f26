"""Benchmark result files: load, pick the newest, tell whether it is stale.

The one place that decides which result a page shows: the Benchmarks page,
the lessons' tables and the decision memo all pick through ``newest``, from
files read through ``evidence.read`` and the method's cross-field
checks.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import subprocess
from dataclasses import dataclass
from pathlib import Path

import evidence
from evidence import (
    ROOT,
    ResultFileError,
    current_sources,
    display_path,
    read,
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
    """One result file, validated against the schema, the kernel catalog, the
    method's cross-field rules (``check_consistency``) and, where the git
    history holds the recorded commit, the kernel hashes of that commit; or
    ResultFileError naming the file and field."""
    loaded = read("bench", path, root)
    shown = display_path(path, root)
    check_consistency(loaded.data, shown, known_kernels(root))
    _check_commit_hashes(loaded.data, shown, Path(root))
    return Result(Path(path), loaded.name, loaded.raw, loaded.sha256, loaded.data)


def load_results(
    results_dir: Path | None = None, root: Path = ROOT, *, adding: Path | None = None
) -> list[Result]:
    """Every result file, oldest first (by start time, then name), each
    through ``load_result`` (and so ``read``, which refuses a directory or a
    symlink named *.json), then checked as a set: one file per run, one name
    per GPU uuid. ``adding`` is a file checked as if it were in the folder,
    after the files there (what contribute asks)."""
    folder = Path(results_dir) if results_dir is not None else RESULTS_DIR
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if adding is not None:
        paths.append(Path(adding))
    key = _folder_key(paths, Path(root))
    if key is not None and key in _loaded:
        return list(_loaded[key])
    results = [load_result(p, root) for p in paths]
    check_folder(results, root)
    # Dates were checked on load; compare them as times, not as text.
    results.sort(key=lambda r: (parse_utc(r.started), r.name))
    results = merge_cells(results)
    if key is not None:
        _loaded[key] = tuple(results)
    return results


# One build asks for the same folder from every page: the checked results of
# a folder whose files (and catalog) have not changed since, by inode, size
# and modification time. Callers treat a Result's data as read-only.
_loaded: dict[tuple, tuple[Result, ...]] = {}


def _folder_key(paths: list[Path], root: Path) -> tuple | None:
    stats = []
    for path in [*paths, root / CATALOG]:
        try:
            stat = path.lstat()
        except OSError:
            return None  # let load_result say what is wrong
        stats.append(
            (str(path.absolute()), stat.st_ino, stat.st_size, stat.st_mtime_ns)
        )
    return (str(root.absolute()), tuple(stats))


def run_identity(data: dict) -> tuple:
    """What makes two files the same run, whatever their bytes or names."""
    identity = data["identity"]
    cell = identity.get("cell") or {}  # jobs of one manifest may start together
    return (
        identity["commit"],
        parse_utc(identity["started_utc"]),
        identity["profile"],
        data["device"]["name"],
        cell.get("plan_sha256"),
        cell.get("index"),
    )


def _plan_key(result: Result) -> tuple | None:
    identity = result.data["identity"]
    cell = identity.get("cell")
    if not cell:
        return None
    device = result.data["device"]
    return (cell["plan_sha256"], identity["commit"], device["name"], device.get("uuid"))


def merge_cells(results: list[Result]) -> list[Result]:
    """Files that each measured one cell of the same manifest (``python -m
    scripts.bench plan``), with the same commit and device, joined into one
    run once every cell is there, at the place of its first file; a plan
    with a cell missing stays as its files. The joined run's rows are in
    cell order; its ceilings are the fastest each probe reached in any cell
    (so no row is judged against a slower probe than its own); every cell's
    file keeps its own."""
    groups: dict[tuple, list[Result]] = {}
    for result in results:
        key = _plan_key(result)
        if key is not None:
            groups.setdefault(key, []).append(result)
    joined = {}
    for key, group in groups.items():
        group.sort(key=lambda r: r.data["identity"]["cell"]["index"])
        indexes = [r.data["identity"]["cell"]["index"] for r in group]
        if indexes == list(range(group[0].data["identity"]["cell"]["cells"])):
            joined[key] = _joined(group)
    out, done = [], set()
    for result in results:
        key = _plan_key(result)
        if key not in joined:
            out.append(result)
        elif key not in done:
            out.append(joined[key])
            done.add(key)
    return out


def _joined(group: list[Result]) -> Result:
    first = group[0]
    data = copy.deepcopy(first.data)
    data["rows"] = [row for r in group for row in r.data["rows"]]
    data["shape_errors"] = [e for r in group for e in r.data.get("shape_errors", [])]
    data["kernels"] = {k: v for r in group for k, v in r.data["kernels"].items()}
    statuses = {r.data["run_status"] for r in group}
    data["run_status"] = statuses.pop() if len(statuses) == 1 else "partial"
    finished = [r.data["identity"].get("finished_utc") for r in group]
    if all(finished):
        data["identity"]["finished_utc"] = max(finished, key=parse_utc)
    data["identity"].pop("cell")
    data["ceilings"] = _fastest_ceilings([r.data.get("ceilings") for r in group])
    digest = hashlib.sha256("".join(r.sha256 for r in group).encode()).hexdigest()
    name = f"{first.name} and {len(group) - 1} more cells"
    return Result(first.path, name, first.raw, digest, data)


_PROBE_RATES = (
    "best_bandwidth_bytes_per_s",
    "bandwidth_bytes_per_s",
    "best_flop_rate_per_s",
    "flop_rate_per_s",
)


def _fastest_ceilings(all_ceilings: list) -> dict | None:
    best = copy.deepcopy(all_ceilings[0])
    if not best:
        return best
    for ceilings in all_ceilings[1:]:
        for probe, fields in (ceilings or {}).items():
            if not isinstance(fields, dict) or not isinstance(best.get(probe), dict):
                continue
            for field in _PROBE_RATES:
                mine = fields.get(field)
                if mine is not None and mine > (best[probe].get(field) or 0):
                    best[probe][field] = mine
    return best


def check_folder(results: list[Result], root: Path = ROOT) -> None:
    """One file per run (a re-serialised or edited copy of a run is refused,
    the later one named) and, per GPU uuid, one device name and one set of
    device figures across files."""
    seen: dict[tuple, Result] = {}
    devices: dict[str, tuple[Result, tuple]] = {}
    for result in results:
        shown = display_path(result.path, root)
        key = run_identity(result.data)
        if key in seen:
            raise ResultFileError(
                f"{shown}: field 'identity': the same run (commit, start, "
                f"profile, device) as {seen[key].name}; one file per run"
            )
        seen[key] = result
        device = result.data["device"]
        uuid = device.get("uuid")
        if not result.on_gpu or not uuid:
            continue
        facts = tuple(device.get(k) for k in ("name", "sm_count", "memory_bytes"))
        if uuid in devices and devices[uuid][1] != facts:
            raise ResultFileError(
                f"{shown}: field 'device.uuid': the same GPU as in "
                f"{devices[uuid][0].name}, with another name or figures"
            )
        devices.setdefault(uuid, (result, facts))


def _check_commit_hashes(data: dict, shown: str, root: Path) -> None:
    """A clean run's kernel hashes are those of its recorded commit, where
    the checkout's git history has that commit (an old commit cannot claim
    today's kernels). A dirty run is shown as such and not checked."""
    identity = data["identity"]
    if identity.get("dirty") or not (root / ".git").exists():
        return
    commit = str(identity["commit"])
    if not _known_commit(str(root), commit):
        return
    for kernel, meta in data["kernels"].items():
        for path, recorded in meta["sources"].items():
            if _hash_at(str(root), commit, path) != recorded:
                raise ResultFileError(
                    f"{shown}: field 'kernels.{kernel}.sources': {path} at commit "
                    f"{commit[:12]} does not have the recorded sha256 (a clean "
                    "run records its commit's files)"
                )


def _git(root: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "-C", root, *args], capture_output=True, timeout=30, check=False
    )


@functools.cache
def _known_commit(root: str, commit: str) -> bool:
    if not commit or commit.startswith("-") or not commit.isalnum():
        return False
    try:
        found = _git(root, "cat-file", "-e", f"{commit}^{{commit}}")
    except (OSError, subprocess.SubprocessError):
        return False
    return found.returncode == 0


@functools.cache
def _hash_at(root: str, commit: str, path: str) -> str | None:
    """sha256 of a file as the commit has it (None: not in that commit)."""
    shown = _git(root, "show", f"{commit}:{path}")
    return hashlib.sha256(shown.stdout).hexdigest() if shown.returncode == 0 else None


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


def stale_changes(result: Result, kernel: str, root: Path = ROOT) -> list[dict]:
    """The kernel's source files that changed since the run (empty: the
    result describes the code as it is now)."""
    recorded = result.data["kernels"][kernel]["sources"]
    return evidence.stale_changes(recorded, current_sources(kernel, root))
