"""Benchmark results rendered into the site at build time.

Pages place results with the build hook's placeholders:

* ``<!-- insert: scripts/bench_embed.py:kernel_results("matmul") -->``: the
  latest result for one kernel (a GPU result if any exists, else a CPU one):
  a table (rows shapes, columns providers) and an SVG plot, captioned with the
  device, software, commit, date and the result file's sha256, with a link to
  the raw file. Marked **stale** when the kernel's source changed since.
* ``<!-- insert: scripts/bench_embed.py:all_results() -->``: every result file
  with its identity and ceilings (the Benchmarks page).
* ``goals_table()``, ``method_value(NAME)``: the goals and the method's numbers.

``site_files()`` returns the plots and raw result files (site path -> bytes);
the hook writes them into the built site. A malformed result file raises
``ResultFileError`` naming the file and the field, which fails the build.

This module imports neither torch nor triton: the site build must stay fast.
The method's constants live here so that the runner (``scripts/bench.py``)
and the pages read the same numbers.
"""

from __future__ import annotations

import hashlib
import html
import io
import json
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "results" / "bench"
SCHEMA_VERSION = 1
SITE_DIR = "bench"  # where plots and raw files go in the built site

# The method (docs/reference/benchmarks.md states these through method_value).
METHOD = {
    "warmup_ms": 100.0,  # at least this much warm-up per provider
    "min_rounds": 3,  # interleaved rounds, each provider once per round
    "flush_l2_multiple": 4,  # the L2 flush writes this many times L2
    "launch_bound_us": 10.0,  # best median below this: launch-bound
    "l2_affected_multiple": 2,  # working set below this many L2s: L2-affected
    "hbm_bound_multiple": 4,  # working set at least this many L2s ...
    "hbm_bound_min_us": 50.0,  # ... and best median at least this: HBM-bound
    # A time below bytes / (best copy bandwidth x slack) is impossible.
    "plausibility_slack": 1.05,
    # Speedups past (what the byte counts allow) x margin are suspect.
    "suspect_margin": 1.2,
}
LAUNCH_BOUND_MS = METHOD["launch_bound_us"] / 1e3
# Rounds x timed calls per round, per profile of scripts/bench.py.
PROFILE_ROUNDS = {"quick": (3, 10), "full": (5, 10), "tiny": (3, 5)}

LABEL_LAUNCH = "launch-bound"
LABEL_L2 = "L2-affected"
LABEL_HBM = "HBM-bound"
LABEL_FLOP = "FLOP-bound"
LABEL_NONE = "unclassified"
LABEL_CPU = "CPU host timing"

RUN_STATUSES = ("running", "complete", "interrupted", "failed")
ROW_STATUSES = (
    "ok",
    "incorrect",
    "error",
    "interpreter-correctness-only",
    "implausible",
)

# The goals for the custom kernels (H200, HBM-bound rows, one run). R is
# min(eager, compile) time / custom time; F is achieved / measured ceiling.
GOALS = [
    ("residual add + ReLU", "R ≥ 0.95, F_bw ≥ 0.85, ≥ 1.4× eager", "F_bw ≥ 0.92"),
    ("sum reduction", "R ≥ 0.90, F_bw ≥ 0.85", "R ≥ 1.0"),
    (
        "matmul bf16",
        "R ≥ 0.80 at 8192³, ≥ 0.70 at 4096³, F_flop ≥ 0.65",
        "R ≥ 0.90",
    ),
    ("softmax, row fits on chip", "R ≥ 0.95, F_bw ≥ 0.80", "F_bw ≥ 0.88"),
    ("softmax, 65k-wide rows", "R ≥ 0.90, F_bw ≥ 0.55", "F_bw ≥ 0.62"),
    (
        "attention forward, D = 128, S ≥ 4096",
        "R ≥ 0.70 against the best of eager, compile and PyTorch's SDPA; F_flop ≥ 0.45",
        "R ≥ 0.85",
    ),
    ("inclusive scan, 1-D", "R ≥ 0.60, F_bw ≥ 0.55", "single-pass look-back: R ≥ 0.85"),
    ("transpose", "R ≥ 0.95, F_bw ≥ 0.80", "F_bw ≥ 0.88"),
]


class ResultFileError(ValueError):
    """A result file that cannot be used; the message names file and field."""


# --------------------------------------------------------------------------
# The method's rules (shared with scripts/bench.py)
# --------------------------------------------------------------------------


def classify(
    metric: str,
    best_median_ms: float | None,
    working_set_bytes: int,
    l2_bytes: int | None,
    on_gpu: bool = True,
) -> list[str]:
    """Labels for one shape, from its best median and its working set."""
    if not on_gpu:
        return [LABEL_CPU]
    if best_median_ms is None or not l2_bytes:
        return [LABEL_NONE]
    labels = []
    if best_median_ms < LAUNCH_BOUND_MS:
        labels.append(LABEL_LAUNCH)
    if working_set_bytes < METHOD["l2_affected_multiple"] * l2_bytes:
        labels.append(LABEL_L2)
    elif (
        working_set_bytes >= METHOD["hbm_bound_multiple"] * l2_bytes
        and best_median_ms >= METHOD["hbm_bound_min_us"] / 1e3
    ):
        # Matmul and attention reuse their data on chip: out of L2 and long
        # enough, they are limited by arithmetic, not by HBM.
        labels.append(LABEL_HBM if metric == "bandwidth" else LABEL_FLOP)
    return labels or [LABEL_NONE]


def plausibility_flags(
    bytes_moved: int, median_ms: float, best_copy_bytes_per_s: float
) -> list[str]:
    """An "impossible" flag when the time is below what moving the bytes at
    the best measured copy bandwidth takes (with a small slack)."""
    if not bytes_moved or not best_copy_bytes_per_s:
        return []
    floor_ms = (
        bytes_moved / (best_copy_bytes_per_s * METHOD["plausibility_slack"]) * 1e3
    )
    if median_ms < floor_ms:
        return [
            f"impossible: median {median_ms:.4g} ms is below {floor_ms:.4g} ms, "
            "the time to move the model's bytes at the measured copy bandwidth"
        ]
    return []


def kernel_source_paths(kernel: str, root: Path = ROOT) -> list[Path]:
    """The files whose hash identifies a kernel: kernels/<kernel>.py, or every
    .py file of a kernels/<kernel>/ package."""
    module = root / "kernels" / f"{kernel}.py"
    if module.is_file():
        return [module]
    package = root / "kernels" / kernel
    if package.is_dir():
        return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)
    return []


def current_sources(kernel: str, root: Path = ROOT) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in kernel_source_paths(kernel, root)
    }


def method_value(name: str) -> str:
    """One of the method's numbers, as the page prints it."""
    if name not in METHOD:
        raise KeyError(f"method_value: no setting {name!r}; known: {sorted(METHOD)}")
    value = METHOD[name]
    return f"{value:g}" if isinstance(value, float) else str(value)


def profile_rounds(profile: str) -> str:
    """How many timed calls a profile makes per provider and shape."""
    if profile not in PROFILE_ROUNDS:
        raise KeyError(f"profile_rounds: no profile {profile!r}")
    rounds, repeats = PROFILE_ROUNDS[profile]
    return f"{rounds} rounds of {repeats} timed calls"


def schema_version() -> str:
    return str(SCHEMA_VERSION)


# --------------------------------------------------------------------------
# Reading and validating result files
# --------------------------------------------------------------------------

_NUMBER = (int, float)


def _need(obj, key, kind, where, file):
    """obj[key], or ResultFileError naming the file and the field."""
    field_name = f"{where}.{key}" if where else key
    if not isinstance(obj, dict) or key not in obj:
        raise ResultFileError(f"{file}: missing field '{field_name}'")
    value = obj[key]
    if kind is not None and (
        not isinstance(value, kind) or (kind is not bool and isinstance(value, bool))
    ):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        wanted = " or ".join(k.__name__ for k in kinds)
        raise ResultFileError(
            f"{file}: field '{field_name}' must be {wanted}, got {type(value).__name__}"
        )
    return value


def validate_result(data, file: str) -> None:
    """Raise ResultFileError naming the file and field of the first problem."""
    if not isinstance(data, dict):
        raise ResultFileError(f"{file}: the top level must be a JSON object")
    version = _need(data, "schema_version", int, "", file)
    if version != SCHEMA_VERSION:
        raise ResultFileError(
            f"{file}: field 'schema_version' is {version}; this reader knows "
            f"{SCHEMA_VERSION}"
        )
    status = _need(data, "run_status", str, "", file)
    if status not in RUN_STATUSES:
        raise ResultFileError(f"{file}: field 'run_status' is {status!r}")
    identity = _need(data, "identity", dict, "", file)
    for key in ("commit", "started_utc", "profile", "device_kind"):
        _need(identity, key, str, "identity", file)
    if identity["device_kind"] not in ("cpu", "cuda"):
        raise ResultFileError(
            f"{file}: field 'identity.device_kind' is {identity['device_kind']!r}"
        )
    software = _need(data, "software", dict, "", file)
    for key in ("python", "torch", "triton"):
        _need(software, key, str, "software", file)
    device = _need(data, "device", dict, "", file)
    _need(device, "name", str, "device", file)
    _need(data, "settings", dict, "", file)
    kernels = _need(data, "kernels", dict, "", file)
    for name, meta in kernels.items():
        where = f"kernels.{name}"
        sources = _need(meta, "sources", dict, where, file)
        for path, digest in sources.items():
            if not isinstance(digest, str) or len(digest) != 64:
                raise ResultFileError(
                    f"{file}: field '{where}.sources.{path}' must be a sha256"
                )
        _need(meta, "metric", str, where, file)
        _need(meta, "providers", list, where, file)
    ceilings = data.get("ceilings", KeyError)
    if ceilings is KeyError:
        raise ResultFileError(f"{file}: missing field 'ceilings'")
    if ceilings is not None:
        if not isinstance(ceilings, dict):
            raise ResultFileError(f"{file}: field 'ceilings' must be dict or null")
        copy = _need(ceilings, "copy", dict, "ceilings", file)
        _need(copy, "bandwidth_bytes_per_s", _NUMBER, "ceilings.copy", file)
        matmul = _need(ceilings, "matmul", dict, "ceilings", file)
        _need(matmul, "flop_rate_per_s", _NUMBER, "ceilings.matmul", file)
    rows = _need(data, "rows", list, "", file)
    for i, row in enumerate(rows):
        where = f"rows[{i}]"
        if not isinstance(row, dict):
            raise ResultFileError(f"{file}: field '{where}' must be an object")
        kernel = _need(row, "kernel", str, where, file)
        if kernel not in kernels:
            raise ResultFileError(
                f"{file}: field '{where}.kernel' names {kernel!r}, "
                "which 'kernels' does not list"
            )
        for key in ("provider", "provider_kind", "shape_text", "dtype", "status"):
            _need(row, key, str, where, file)
        if row["status"] not in ROW_STATUSES:
            raise ResultFileError(
                f"{file}: field '{where}.status' is {row['status']!r}"
            )
        _need(row, "shape", dict, where, file)
        _need(row, "labels", list, where, file)
        for key in ("bytes_moved", "flops"):
            _need(row, key, int, where, file)
        if _need(row, "timed", bool, where, file):
            for key in ("median_ms", "p20_ms", "p80_ms", "first_call_ms"):
                _need(row, key, _NUMBER, where, file)
            samples = _need(row, "samples_ms", list, where, file)
            if not samples or not all(
                isinstance(s, _NUMBER) and not isinstance(s, bool) for s in samples
            ):
                raise ResultFileError(
                    f"{file}: field '{where}.samples_ms' must be a non-empty "
                    "list of numbers"
                )
            _need(row, "timer", str, where, file)
            if not row["p20_ms"] <= row["median_ms"] <= row["p80_ms"]:
                raise ResultFileError(
                    f"{file}: fields '{where}.p20_ms' <= 'median_ms' <= 'p80_ms' "
                    "do not hold"
                )


@dataclass(frozen=True)
class Result:
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


_cache: dict = {}


def _display_path(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def load_result(path: Path, root: Path = ROOT) -> Result:
    """One validated result file (cached while the file is unchanged)."""
    path = Path(path)
    stat = path.stat()
    key = ("result", str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key in _cache:
        return _cache[key]
    shown = _display_path(path, root)
    raw = path.read_bytes()
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ResultFileError(f"{shown}: not valid JSON: {exc}") from exc
    validate_result(data, shown)
    result = Result(path, path.name, raw, hashlib.sha256(raw).hexdigest(), data)
    _cache[key] = result
    return result


def load_results(results_dir: Path | None = None, root: Path = ROOT) -> list[Result]:
    """Every result file, oldest first (by start time, then name)."""
    folder = Path(results_dir) if results_dir is not None else RESULTS_DIR
    if not folder.is_dir():
        return []
    results = [load_result(p, root) for p in sorted(folder.glob("*.json"))]
    return sorted(results, key=lambda r: (r.started, r.name))


def latest_for(kernel: str, results: list[Result]) -> Result | None:
    """The newest result holding this kernel: a GPU one if any exists."""
    holding = [r for r in results if kernel in r.data["kernels"]]
    gpu = [r for r in holding if r.on_gpu]
    pool = gpu or holding
    return pool[-1] if pool else None


# --------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------


def _unit_for(ms: float) -> tuple[str, float]:
    if ms < 1.0:
        return "µs", 1e3
    if ms < 1e3:
        return "ms", 1.0
    return "s", 1e-3


def format_time(ms: float) -> str:
    unit, scale = _unit_for(ms)
    return f"{ms * scale:.3g} {unit}"


def format_spread(row: dict) -> str:
    unit, scale = _unit_for(row["median_ms"])
    return f"{row['p20_ms'] * scale:.3g}–{row['p80_ms'] * scale:.3g} {unit}"


def format_rate(value: float, metric: str) -> str:
    if metric == "bandwidth":
        return f"{value / 1e9:.4g} GB/s"
    return f"{value / 1e12:.4g} TFLOP/s"


def format_bytes(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.3g} {unit}"
    return f"{count} B"


def _relative(page_url: str, target: str) -> str:
    depth = len([part for part in page_url.split("/") if part])
    return "../" * depth + target


def raw_site_path(result: Result) -> str:
    return f"{SITE_DIR}/results/{result.name}"


def plot_site_path(kernel: str) -> str:
    return f"{SITE_DIR}/{kernel}.svg"


def device_text(result: Result) -> str:
    device = result.data["device"]
    if result.on_gpu:
        return f"GPU: {device['name']}"
    return f"CPU (host timers, not device speed): {device['name']}"


def software_text(result: Result) -> str:
    sw = result.data["software"]
    cuda = sw.get("torch_cuda")
    torch_text = f"torch {sw['torch']}" + (f" (CUDA {cuda})" if cuda else "")
    text = f"Python {sw['python']}, {torch_text}, Triton {sw['triton']}"
    if sw.get("driver"):
        text += f", driver {sw['driver']}"
    return text


def commit_text(result: Result) -> str:
    identity = result.data["identity"]
    text = identity["commit"][:12]
    if identity.get("dirty"):
        text += " (uncommitted changes)"
    return text


def date_text(result: Result) -> str:
    return result.started.replace("T", " ").replace("+00:00", " UTC")


def cell_text(row: dict) -> str:
    status = row["status"]
    if status == "interpreter-correctness-only":
        return "interpreter: correct, not timed"
    if status == "incorrect":
        return "**incorrect**, not timed"
    if status == "error":
        return "**error**, not timed"
    if status == "implausible":
        return "**flagged**: faster than the copy bound allows"
    if not row.get("timed"):
        return "not timed"
    text = f"{format_time(row['median_ms'])}<br>{format_spread(row)}"
    fraction = row.get("fraction_of_ceiling")
    if fraction is not None:
        text += f"<br>F {fraction:.2f}"
    return text


def _shapes_in_order(rows: list[dict]) -> list[str]:
    seen: list[str] = []
    for row in rows:
        key = f"{row['shape_text']} {row['dtype']}"
        if key not in seen:
            seen.append(key)
    return seen


def ratio_r(rows_by_provider: dict, baselines: list[str]) -> float | None:
    """R = min(baseline medians) / custom median, for timed, valid rows."""
    custom = rows_by_provider.get("triton")
    if not custom or custom["status"] != "ok" or not custom.get("timed"):
        return None
    base = [
        rows_by_provider[name]["median_ms"]
        for name in baselines
        if name in rows_by_provider
        and rows_by_provider[name]["status"] == "ok"
        and rows_by_provider[name].get("timed")
    ]
    if not base or custom["median_ms"] <= 0:
        return None
    return min(base) / custom["median_ms"]


def results_table(result: Result, kernel: str) -> str:
    meta = result.data["kernels"][kernel]
    providers = meta["providers"]
    rows = [r for r in result.data["rows"] if r["kernel"] == kernel]
    baselines = meta.get("r_baselines", ["eager", "compile"])
    show_r = result.on_gpu
    header = ["Shape", *providers, *(["R"] if show_r else []), "Label"]
    lines = [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(["---"] + ["---:"] * (len(header) - 2) + ["---"]) + " |",
    ]
    for shape in _shapes_in_order(rows):
        by_provider = {
            r["provider"]: r for r in rows if f"{r['shape_text']} {r['dtype']}" == shape
        }
        cells = [shape]
        for provider in providers:
            row = by_provider.get(provider)
            cells.append(cell_text(row) if row else "—")
        if show_r:
            r = ratio_r(by_provider, baselines)
            cells.append(f"{r:.2f}" if r is not None else "—")
        labels = next(iter(by_provider.values()))["labels"]
        cells.append(", ".join(labels))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def row_notes(result: Result, kernel: str) -> list[str]:
    """Flags, failures and shapes that could not run, one bullet each."""
    notes = []
    for row in result.data["rows"]:
        if row["kernel"] != kernel:
            continue
        where = f"{row['shape_text']} {row['dtype']}, {row['provider']}"
        for flag in row.get("flags") or []:
            notes.append(f"- {where}: {flag}")
        if row["status"] in ("incorrect", "error"):
            why = row.get("reason") or row.get("error") or "no reason recorded"
            notes.append(f"- {where}: {row['status']}: {why}")
    for failure in result.data.get("shape_errors") or []:
        if failure.get("kernel") == kernel:
            notes.append(
                f"- {failure.get('shape_text', '?')}: could not run: "
                f"{failure.get('error', '?')}"
            )
    return [html.escape(note, quote=False) for note in notes]


def stale_changes(result: Result, kernel: str, root: Path = ROOT) -> list[str]:
    """What changed in the kernel's source since the run, one line per file."""
    recorded = result.data["kernels"][kernel]["sources"]
    now = current_sources(kernel, root)
    changes = []
    for path in sorted(set(recorded) | set(now)):
        old, new = recorded.get(path), now.get(path)
        if old == new:
            continue
        if new is None:
            changes.append(f"`{path}` was removed (recorded sha256 `{old[:12]}`)")
        elif old is None:
            changes.append(f"`{path}` is new (sha256 `{new[:12]}`)")
        else:
            changes.append(
                f"`{path}` changed: sha256 `{old[:12]}` when measured, `{new[:12]}` now"
            )
    return changes


def caption_html(result: Result, page_url: str) -> str:
    identity = result.data["identity"]
    parts = [
        html.escape(device_text(result)),
        html.escape(software_text(result)),
        f"commit <code>{html.escape(commit_text(result))}</code>",
        html.escape(date_text(result)),
        f"profile {html.escape(identity['profile'])}",
    ]
    if result.data["run_status"] != "complete":
        parts.append(f"run {html.escape(result.data['run_status'])} (partial)")
    parts.append(f"sha256 <code>{result.sha256}</code>")
    link = _relative(page_url, raw_site_path(result))
    parts.append(
        f'<a href="{link}" download>raw result ({html.escape(result.name)})</a>'
    )
    return " · ".join(parts)


def _indent(text: str) -> str:
    return "\n".join(("    " + line) if line else "" for line in text.split("\n"))


def kernel_results(
    kernel: str,
    page_url: str = "",
    *,
    results_dir: Path | None = None,
    root: Path = ROOT,
) -> str:
    """The Markdown block a page shows for one kernel's latest result."""
    results = load_results(results_dir, root)
    result = latest_for(kernel, results)
    if result is None:
        return (
            '!!! note "Not measured yet"\n\n'
            f"    No result file in `results/bench/` holds `{kernel}` yet. "
            "Maintainers run `make bench` on a GPU and commit the file it "
            "writes; the table and plot then appear here.\n"
        )
    blocks = []
    if not result.on_gpu:
        blocks.append(
            '!!! warning "Evidence: CPU run, not device speed"\n\n'
            + _indent(
                "No GPU measurement has been published yet. This table comes "
                "from the same harness run on a CPU with host timers: eager "
                "PyTorch against torch.compile on CPU tensors. Triton ran in "
                "its interpreter, checked for correctness only and not timed. "
                "None of these times say anything about a GPU."
            )
        )
    else:
        blocks.append(
            '!!! abstract "Evidence: device measurement"\n\n'
            + _indent(
                f"Measured on {result.data['device']['name']} with CUDA events "
                "and an L2 flush before every timed call; valid for that "
                "device and that software only."
            )
        )
    changes = stale_changes(result, kernel, root)
    if changes:
        blocks.append(
            '!!! danger "Stale result"\n\n'
            + _indent(
                "**stale**: the kernel's source changed after this run, so "
                "these numbers describe an older version.\n\n"
                + "\n".join(f"- {line}" for line in changes)
            )
        )
    blocks.append(results_table(result, kernel))
    meta = result.data["kernels"][kernel]
    what = "bandwidth" if meta["metric"] == "bandwidth" else "FLOP rate"
    ceiling = "copy" if meta["metric"] == "bandwidth" else "matmul"
    legend = (
        "Each cell: median, then p20–p80 of every timed call"
        + (
            f", then F, the achieved {what} as a fraction of the {ceiling} "
            "ceiling measured in the same run"
            if result.on_gpu
            else ""
        )
        + "."
    )
    if result.on_gpu:
        legend += (
            " R is the best of "
            + ", ".join(meta.get("r_baselines", ["eager", "compile"]))
            + " divided by the Triton time (above 1: Triton is faster)."
        )
    if meta.get("eager_is"):
        legend += f" Eager here is {meta['eager_is']}."
    blocks.append(legend)
    notes = row_notes(result, kernel)
    if notes:
        blocks.append("Notes recorded with this run:\n\n" + "\n".join(notes))
    alt = f"{kernel}: {'achieved rate' if result.on_gpu else 'host time'} per shape"
    blocks.append(
        '<figure class="bench-plot">\n'
        f'<img src="{_relative(page_url, plot_site_path(kernel))}" '
        f'alt="{html.escape(alt)}">\n'
        f"<figcaption>{caption_html(result, page_url)}</figcaption>\n"
        "</figure>"
    )
    return "\n\n".join(blocks) + "\n"


def all_results(
    page_url: str = "reference/benchmarks/",
    *,
    results_dir: Path | None = None,
    root: Path = ROOT,
) -> str:
    """Every result file, newest first: identity, software, device,
    ceilings and a download link."""
    results = load_results(results_dir, root)
    if not results:
        return "No result files have been committed yet.\n"
    blocks = []
    for result in reversed(results):
        identity = result.data["identity"]
        link = _relative(page_url, raw_site_path(result))
        kind = "GPU run" if result.on_gpu else "CPU run (not device speed)"
        kernels = ", ".join(f"`{k}`" for k in result.data["kernels"])
        lines = [
            f'**<a href="{link}" download>{html.escape(result.name)}</a>** · {kind}',
            "",
            f"- Identity: commit `{commit_text(result)}`, started "
            f"{date_text(result)}, profile `{identity['profile']}`, run "
            f"{result.data['run_status']}, {len(result.data['rows'])} rows "
            f"({kernels})",
            f"- Device: {html.escape(device_text(result))}",
            f"- Software: {software_text(result)}",
            f"- Copy ceiling (median, best): {_ceiling_cell(result, 'copy')}",
            f"- Matmul ceiling (median, best): {_ceiling_cell(result, 'matmul')}",
            f"- Datasheet: {_datasheet_cell(result)}",
            f"- sha256: `{result.sha256}`",
        ]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def _ceiling_cell(result: Result, which: str) -> str:
    ceilings = result.data.get("ceilings")
    if not ceilings:
        return "not measured"
    c = ceilings[which]
    if which == "copy":
        text = (
            f"{format_rate(c['bandwidth_bytes_per_s'], 'bandwidth')}, "
            f"{format_rate(c.get('best_bandwidth_bytes_per_s', 0), 'bandwidth')} "
            f"({format_bytes(c.get('bytes_moved', 0))} read + written)"
        )
    else:
        shape = "×".join(str(n) for n in c.get("shape", []))
        text = (
            f"{format_rate(c['flop_rate_per_s'], 'flops')}, "
            f"{format_rate(c.get('best_flop_rate_per_s', 0), 'flops')} "
            f"({c.get('dtype', '?')} {shape})"
        )
    if not result.on_gpu:
        text += ", CPU host timing"
    return text


def _datasheet_cell(result: Result) -> str:
    sheet = (result.data.get("ceilings") or {}).get("datasheet")
    if not sheet:
        return "none on record for this device"
    return (
        f"{format_rate(sheet['bandwidth_bytes_per_s'], 'bandwidth')}, "
        f"{format_rate(sheet['bf16_dense_flop_per_s'], 'flops')} bf16 dense "
        f"({html.escape(sheet.get('source', ''))})"
    )


def goals_table() -> str:
    lines = [
        "| Kernel | Must | Stretch |",
        "| --- | --- | --- |",
        *(f"| {k} | {must} | {stretch} |" for k, must, stretch in GOALS),
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# The plot
# --------------------------------------------------------------------------

# Fixed settings so that the same result gives the same bytes every build.
SVG_RC = {
    "svg.hashsalt": "gpu-perf-bench",
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
}
MARKERS = ("o", "s", "^", "D", "v", "P")


def _plain_number(value: float, _position) -> str:
    return f"{value:g}"


def render_svg(result: Result, kernel: str) -> bytes:
    key = ("svg", result.sha256, kernel)
    if key in _cache:
        return _cache[key]
    import matplotlib
    from matplotlib import ticker
    from matplotlib.figure import Figure

    meta = result.data["kernels"][kernel]
    rows = [r for r in result.data["rows"] if r["kernel"] == kernel]
    shapes = _shapes_in_order(rows)
    providers = meta["providers"]
    on_gpu = result.on_gpu
    metric = meta["metric"]
    with matplotlib.rc_context(SVG_RC):
        fig = Figure(figsize=(7.0, 3.6))
        ax = fig.add_subplot()
        width = 0.8 / max(1, len(providers))
        for i, provider in enumerate(providers):
            xs, ys, lows, highs = [], [], [], []
            for j, shape in enumerate(shapes):
                row = next(
                    (
                        r
                        for r in rows
                        if r["provider"] == provider
                        and f"{r['shape_text']} {r['dtype']}" == shape
                    ),
                    None,
                )
                if row is None or row["status"] != "ok" or not row.get("timed"):
                    continue
                if on_gpu:
                    work = row["bytes_moved"] if metric == "bandwidth" else row["flops"]
                    scale = 1e9 if metric == "bandwidth" else 1e12
                    y = work / (row["median_ms"] * 1e-3) / scale
                    high = work / (row["p20_ms"] * 1e-3) / scale
                    low = work / (row["p80_ms"] * 1e-3) / scale
                else:  # host time in µs
                    y, low, high = (
                        1e3 * row[key] for key in ("median_ms", "p20_ms", "p80_ms")
                    )
                xs.append(j - 0.4 + width * (i + 0.5))
                ys.append(y)
                lows.append(y - low)
                highs.append(high - y)
            if xs:
                ax.errorbar(
                    xs,
                    ys,
                    yerr=[lows, highs],
                    fmt=MARKERS[i % len(MARKERS)],
                    label=provider,
                    capsize=2,
                    markersize=4,
                )
        ceilings = result.data.get("ceilings")
        if on_gpu and ceilings:
            if metric == "bandwidth":
                level = ceilings["copy"]["bandwidth_bytes_per_s"] / 1e9
                name = "copy ceiling (this run)"
            else:
                level = ceilings["matmul"]["flop_rate_per_s"] / 1e12
                name = "matmul ceiling (this run)"
            ax.axhline(level, linestyle="--", color="0.4", linewidth=1, label=name)
        if on_gpu:
            unit = "GB/s" if metric == "bandwidth" else "TFLOP/s"
            ax.set_ylabel(f"achieved {unit} (median, p20–p80 bars)")
            ax.set_ylim(bottom=0)
            title = f"{kernel} on {result.data['device']['name']}"
        else:
            ax.set_ylabel("host time, µs (median, p20–p80 bars)")
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(ticker.FuncFormatter(_plain_number))
            ax.yaxis.set_minor_formatter(ticker.NullFormatter())
            title = f"{kernel}: CPU host timing (not device speed)"
        ax.set_title(title)
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels(shapes, rotation=0 if len(shapes) < 4 else 15)
        ax.set_xlim(-0.6, len(shapes) - 0.4)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="best", fontsize=8)
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    _cache[key] = svg
    return svg


def site_files(results_dir: Path | None = None, root: Path = ROOT) -> dict[str, bytes]:
    """Plots and raw result files, keyed by their path in the built site."""
    results = load_results(results_dir, root)
    files = {raw_site_path(r): r.raw for r in results}
    kernels = sorted({k for r in results for k in r.data["kernels"]})
    for kernel in kernels:
        result = latest_for(kernel, results)
        files[plot_site_path(kernel)] = render_svg(result, kernel)
    return files
