"""The project's own speed budgets, measured: ``python -m scripts.bench site``.

A budget is a promise about this project on a quiet 2-core machine (a cold
build within 15 s, the suite within 150 s, ...). Tests never assert one: a
test may only guard against a hang. This tool times each budget instead, and
beside every figure it times a calibration task in the same run, so a busy
machine shows up as a larger calibration time and an unchanged ratio, never
as a failure. Each budget is timed against the calibration of its own width:
``one`` (a single process: one qualification, one practice check) or ``all``
(as many processes as the machine has cores: the build with its helper, the
suite's workers), because two busy neighbours slow a one-process task less
than a task that wants every core.

Writes ``results/site_speed/<utc>-<machine>.json`` (kind ``site_speed``,
evidence: measured, CPU) through the result model; the contributing guide
shows the committed files as a table (``scripts/site/site_speed.py``).

Nothing it runs writes into the checkout: builds go to a temporary folder
with their own cache, the corpus's verdicts to a temporary file, and the
prose edit is made on a temporary copy of ``docs/``.

Exit codes: 0 every budget measured or skipped (a figure over its budget is
reported, not an error); 1 some measurement failed (the file says which);
2 usage; 130 interrupted (the file keeps what was measured).
"""

from __future__ import annotations

import multiprocessing
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from evidence import ROOT, display_path, sha256_file, slug, write
from evidence.provenance import cpu_name, git_identity
from scripts.cli import OneLineParser

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
RESULTS = ROOT / "results" / "site_speed"
EVIDENCE = (
    "measured, CPU: this project's own commands timed on the machine named, "
    "each beside a calibration task of the same width; never a GPU's speed"
)
CALIBRATION_TASK = (
    "sum of i*i mod 7 for i below 2,000,000, in pure Python; 'all' runs one "
    "copy per core at once and takes the slowest"
)
#: Calibration samples taken before and after each measurement, per width.
CALIBRATION_SAMPLES = 3
#: A measurement that takes longer than this many times its budget is stopped
#: and reported as failed (hung), so the benchmark itself cannot hang.
HANG_FACTOR = 30
QUIET = {"DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"}


class Skip(Exception):
    """A budget this machine cannot measure (no Chromium, say)."""


class Failed(Exception):
    """A measured command that did not succeed; the message says how."""


@dataclass(frozen=True)
class Timing:
    wall_s: float
    cpu_s: float


@dataclass(frozen=True)
class Budget:
    name: str
    budget_s: float
    clock: str  # "wall" or "cpu": which of the two the budget is about
    width: str  # "one" or "all": the calibration it is compared with
    run: Callable[[Context], Timing]


# --------------------------------------------------------------------------
# Calibration
# --------------------------------------------------------------------------


def calibration_work(_: int = 0) -> int:
    total = 0
    for i in range(2_000_000):
        total += i * i % 7
    return total


def _one_calibration(pool) -> float:
    started = time.perf_counter()
    if pool is None:
        calibration_work()
    else:
        pool.map(calibration_work, range(pool._processes))
    return time.perf_counter() - started


class Calibrator:
    """Times the calibration task at both widths; keeps every sample."""

    def __init__(self):
        self.cores = os.cpu_count() or 1
        self.pool = multiprocessing.get_context("fork").Pool(self.cores)
        self.samples: dict[str, list[float]] = {"one": [], "all": []}

    def sample(self, width: str) -> list[float]:
        pool = self.pool if width == "all" else None
        taken = [_one_calibration(pool) for _ in range(CALIBRATION_SAMPLES)]
        self.samples[width] += taken
        return taken

    def close(self):
        self.pool.terminate()
        self.pool.join()


# --------------------------------------------------------------------------
# Running one command
# --------------------------------------------------------------------------


@dataclass
class Context:
    """What the measurements share: the checkout, a scratch folder, and the
    site built by the cold build (the warm builds and the browser reuse it)."""

    root: Path
    scratch: Path
    python: str = sys.executable

    @property
    def site(self) -> Path:
        return self.scratch / "site"

    @property
    def cache(self) -> Path:
        return self.scratch / "build-cache"

    def env(self, **extra: str) -> dict[str, str]:
        path = os.environ.get("PYTHONPATH")
        pythonpath = str(self.root) + (os.pathsep + path if path else "")
        return dict(os.environ, **QUIET, PYTHONPATH=pythonpath, **extra)


def timed(command: list[str], ctx: Context, limit_s: float, **extra: str) -> Timing:
    """Run a command in the checkout; its wall time and its children's CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command,
            cwd=ctx.root,
            env=ctx.env(**extra),
            capture_output=True,
            text=True,
            timeout=limit_s,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        raise Failed(f"hung: no result after {limit_s:g} s") from None
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
        raise Failed(f"exit {done.returncode}: {last[0][:200]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(wall, cpu)


def build_command(ctx: Context, config: Path | None = None) -> list[str]:
    config = config or ctx.root / "mkdocs.yml"
    return [ctx.python, "-m", "properdocs", "build", "--strict", "-q"] + [
        "-f", str(config), "-d", str(ctx.site)
    ]  # fmt: skip


def _build(ctx: Context, limit_s: float, config: Path | None = None) -> Timing:
    return timed(
        build_command(ctx, config), ctx, limit_s, SITE_BUILD_CACHE=str(ctx.cache)
    )


# --------------------------------------------------------------------------
# The budgets
# --------------------------------------------------------------------------


def cold_build(ctx: Context, limit_s: float) -> Timing:
    shutil.rmtree(ctx.cache, ignore_errors=True)
    return _build(ctx, limit_s)


def warm_rebuild(ctx: Context, limit_s: float) -> Timing:
    if not ctx.cache.is_dir():
        _build(ctx, limit_s * HANG_FACTOR)  # warm the cache first, untimed
    return _build(ctx, limit_s)


def edited_config(ctx: Context) -> Path:
    """A copy of docs/ with one sentence added to a lesson, and a config in
    the scratch folder that builds it: the prose edit a writer makes, never
    made to docs/ itself."""
    docs = ctx.scratch / "edited-docs"
    shutil.rmtree(docs, ignore_errors=True)
    shutil.copytree(ctx.root / "docs", docs, symlinks=True)
    page = docs / "kernels" / "index.md"
    page.write_text(page.read_text("utf-8") + "\nOne more sentence.\n", "utf-8")
    text = (ctx.root / "mkdocs.yml").read_text("utf-8")
    if not re.search(r"^docs_dir: docs$", text, re.M):
        raise Failed("mkdocs.yml no longer says docs_dir: docs")
    text = re.sub(r"^docs_dir: docs$", f"docs_dir: {docs}", text, flags=re.M)
    # Paths the config gives relative to itself (hooks, the theme's
    # overrides) must still name the checkout's files from the scratch copy.
    text = re.sub(
        r"^(\s*-\s+)(scripts/\S+\.py)", lambda m: m[1] + str(ctx.root / m[2]),
        text, flags=re.M,
    )  # fmt: skip
    text = re.sub(
        r"^(\s*custom_dir:\s*)(\S+)", lambda m: m[1] + str(ctx.root / m[2]),
        text, flags=re.M,
    )  # fmt: skip
    config = ctx.scratch / "mkdocs-edited.yml"
    config.write_text(text, "utf-8")
    return config


def prose_edit_rebuild(ctx: Context, limit_s: float) -> Timing:
    if not ctx.cache.is_dir():
        _build(ctx, limit_s * HANG_FACTOR)
    return _build(ctx, limit_s, edited_config(ctx))


RENDER_CODE = """
import time
from scripts.site import bench_pages, bench_plot
from evidence.benchmarks import load_results
start = time.process_time()
kernels = sorted({k for r in load_results() for k in r.data["kernels"]})
for kernel in kernels:
    bench_pages.kernel_results(kernel, "reference/benchmarks/")
bench_pages.all_results()
bench_plot.site_files()
print(time.process_time() - start)
"""


def benchmarks_page_render(ctx: Context, limit_s: float) -> Timing:
    """The committed benchmark files rendered as the build does: the CPU
    time of the rendering process itself (wall time counts neighbours)."""
    started = time.perf_counter()
    done = subprocess.run(
        [ctx.python, "-c", RENDER_CODE], cwd=ctx.root, env=ctx.env(),
        capture_output=True, text=True, timeout=limit_s * HANG_FACTOR,
    )  # fmt: skip
    if done.returncode != 0:
        raise Failed(done.stderr.strip().splitlines()[-1][:200])
    return Timing(time.perf_counter() - started, float(done.stdout.split()[-1]))


def first_calculator_run(ctx: Context, limit_s: float) -> Timing:
    from scripts.bench import site_browser

    return Timing(site_browser.calculator_runs(ctx, limit_s)["first"], 0.0)


def second_page_run(ctx: Context, limit_s: float) -> Timing:
    from scripts.bench import site_browser

    return Timing(site_browser.calculator_runs(ctx, limit_s)["second"], 0.0)


def one_qualification(ctx: Context, limit_s: float) -> Timing:
    out = ctx.scratch / "verdict.json"
    command = [ctx.python, "-m", "scripts.qualify", "kernels/residual_add_relu.py"]
    return timed([*command, "--json", str(out)], ctx, limit_s)


def qualify_corpus(ctx: Context, limit_s: float) -> Timing:
    out = ctx.scratch / "corpus"
    command = [ctx.python, "-m", "scripts.qualify.refresh", "corpus"]
    return timed([*command, "--out", str(out)], ctx, limit_s)


def practice_check(ctx: Context, limit_s: float) -> Timing:
    solution = ctx.root / "practice" / "vector_add" / "solution.py"
    command = [ctx.python, "-m", "scripts.practice", "check", "vector-add"]
    return timed([*command, str(solution)], ctx, limit_s, TRITON_INTERPRET="1")


def test_suite(ctx: Context, limit_s: float) -> Timing:
    pytest = [ctx.python, "-m", "pytest", "-n", "2", "--dist", "worksteal", "-q"]
    return timed([*pytest, "-p", "no:cacheprovider"], ctx, limit_s)


#: Every budget, in the order they run. The build budgets come from the
#: developers' guide (cold build 15 s, suite 150 s), the calculators' from
#: issue 32 (first Run of a visit 4 s, a second page's 1 s); the rest are
#: this project's own, set at about twice a quiet run.
BUDGETS = (
    Budget("cold_build", 15, "wall", "all", cold_build),
    Budget("warm_rebuild", 5, "wall", "all", warm_rebuild),
    Budget("prose_edit_rebuild", 5, "wall", "all", prose_edit_rebuild),
    Budget("benchmarks_page_render", 2, "cpu", "one", benchmarks_page_render),
    Budget("first_calculator_run", 4, "wall", "all", first_calculator_run),
    Budget("second_page_run", 1, "wall", "all", second_page_run),
    Budget("one_qualification", 10, "wall", "one", one_qualification),
    Budget("qualify_corpus", 180, "wall", "one", qualify_corpus),
    Budget("practice_check", 15, "wall", "one", practice_check),
    Budget("test_suite", 150, "wall", "all", test_suite),
)
NAMES = tuple(b.name for b in BUDGETS)
RUNNER_SOURCES = ("scripts/bench/site.py", "scripts/bench/site_browser.py")


# --------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------


def now_utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def memory_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return None


def measure(budget: Budget, ctx: Context, calibrator: Calibrator) -> dict:
    """One budget, between two sets of calibration samples of its width."""
    entry = {
        "name": budget.name, "budget_s": budget.budget_s,
        "clock": budget.clock, "width": budget.width,
    }  # fmt: skip
    around = calibrator.sample(budget.width)
    try:
        timing = budget.run(ctx, budget.budget_s * HANG_FACTOR)
    except Skip as exc:
        return {**entry, "status": "skipped", "reason": str(exc)[:300]}
    except Failed as exc:
        return {**entry, "status": "failed", "reason": str(exc)[:300]}
    around += calibrator.sample(budget.width)
    seconds = timing.wall_s if budget.clock == "wall" else timing.cpu_s
    return {
        **entry,
        "status": "measured",
        "seconds": round(seconds, 3),
        "wall_s": round(timing.wall_s, 3),
        "cpu_s": round(timing.cpu_s, 3),
        "calibration_s": round(statistics.median(around), 6),
        "load": load(),
    }


def record(argv, started, machine, calibrator, entries, status, why=None) -> dict:
    data = {
        "schema_version": 1,
        "run_status": status,
        "evidence": EVIDENCE,
        "identity": {
            **git_identity(),
            "started_utc": started,
            "finished_utc": now_utc(),
            "argv": list(argv),
            "runner_sources": {p: sha256_file(ROOT / p) for p in RUNNER_SOURCES},
        },
        "software": {"python": sys.version.split()[0], "platform": sys.platform},
        "machine": {**machine, "load_after": load()},
        "calibration": {
            "task": CALIBRATION_TASK,
            "widths": {
                w: [round(s, 4) for s in v] or [0.0]
                for w, v in calibrator.samples.items()
            },
        },  # fmt: skip
        "measurements": entries,
    }
    if why:
        data["interrupted"] = why
    return data


def output_path(out: Path, started: str, machine: dict) -> Path:
    stamp = started.replace("-", "").replace(":", "")
    return out / f"{stamp}-{slug(machine['name'], 30)}.json"


def row_line(entry: dict) -> str:
    if entry["status"] != "measured":
        return f"{entry['name']:24} {entry['status']}: {entry.get('reason', '')}"
    ratio = entry["seconds"] / entry["calibration_s"]
    share = entry["seconds"] / entry["budget_s"]
    return (
        f"{entry['name']:24} {entry['seconds']:8.2f} s {entry['clock']:4} "
        f"budget {entry['budget_s']:6g} s ({share:4.0%})  "
        f"= {ratio:6.1f} x calibration ({entry['width']})"
    )


def _sigterm(signum, frame):
    raise KeyboardInterrupt


def run(names: list[str], argv: list[str], out: Path) -> int:
    machine = {
        "kind": "cpu", "name": cpu_name(), "logical_cpus": os.cpu_count() or 1,
        "memory_bytes": memory_bytes(), "load_before": load(),
    }  # fmt: skip
    started, entries, status, why = now_utc(), [], "complete", None
    path = output_path(out, started, machine)
    calibrator = Calibrator()
    previous = signal.signal(signal.SIGTERM, _sigterm)
    try:
        with tempfile.TemporaryDirectory(prefix="bench-site-") as scratch:
            ctx = Context(ROOT, Path(scratch))
            for budget in BUDGETS:
                if budget.name in names:
                    entries.append(measure(budget, ctx, calibrator))
                    print(row_line(entries[-1]), flush=True)
    except KeyboardInterrupt:
        status, why = "partial", "interrupted (Ctrl-C or SIGTERM)"
    finally:
        signal.signal(signal.SIGTERM, previous)
        calibrator.close()
    if entries:
        data = record(argv, started, machine, calibrator, entries, status, why)
        write("site_speed", path, data)
        print(f"wrote {display_path(path)} ({EVIDENCE.split(':')[0]})")
    if status == "partial":
        return EXIT_INTERRUPTED
    return EXIT_FAILED if any(e["status"] == "failed" for e in entries) else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = OneLineParser(
        prog="python -m scripts.bench site",
        tool="bench site",
        exit_code=EXIT_USAGE,
        description="Time the project's own speed budgets beside a calibration.",
    )
    parser.add_argument("--only", nargs="+", metavar="NAME", choices=NAMES)
    parser.add_argument("--skip", nargs="+", metavar="NAME", choices=NAMES)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--list", action="store_true", help="list the budgets")
    args = parser.parse_args(argv)
    if args.list:
        for b in BUDGETS:
            print(f"{b.name:24} {b.budget_s:6g} s {b.clock:4} width {b.width}")
        return EXIT_OK
    names = [n for n in (args.only or NAMES) if n not in (args.skip or ())]
    if not names:
        parser.error("--only and --skip leave no budget to measure")
    return run(names, argv, args.out)
