"""Run Compute Sanitizer over the planted bugs and the project's kernels.

``python -m scripts.sanitize --out DIR`` runs, on a machine with a GPU and
NVIDIA's ``compute-sanitizer`` on the PATH, one ``compute-sanitizer --tool
<tool>`` process per (target, tool, allocator setting):

- each planted bug in ``snippets/compute_sanitizer/planted.py`` under each
  tool and allocator setting that ``findings.EXPECTED`` states an outcome
  for (``--all``: every tool, with PyTorch's caching allocator on and, for
  memcheck and initcheck, off: ``PYTORCH_NO_CUDA_MEMORY_CACHING=1``);
- the memory-bound lessons' kernels (``--all``: every kernel in
  ``kernels/``) at the descriptor's ``tiny`` shape under each tool,
  allocator on (a finding there is a bug in the kernel).

Each run starts Python, torch and Triton under the tool, so it costs tens of
seconds on a GPU machine: the default plan is the short one.

Each process runs ``python -m scripts.sanitize.target <target>``. The tool's
``ERROR SUMMARY`` line is parsed, compared with
``snippets/compute_sanitizer/findings.py`` and written, with the command and
the end of the output, to ``DIR/sanitizer.<mode>.json`` (schema
``evidence/schemas/sanitizer.schema.json``).

``--dry-run`` needs no CUDA, torch or Triton: it records every command and
starts a stub in the tool's place (status ``stub``), so the start, timeout,
parsing and the file written after every run are checked on a CPU first.
``--plan device`` is the short plan for a GPU lease of minutes.

Modules, one job each:

- ``__main__``: the command line: one sanitizer process per target, tool and
  allocator.
- ``target``: the one process compute-sanitizer watches: a planted bug or a
  kernel.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from evidence import ROOT, write
from kernels.descriptor import declared_kernels
from snippets.compute_sanitizer import findings

SANITIZER = "compute-sanitizer"
#: Tools whose findings depend on allocation boundaries: run both ways.
ALLOCATOR_SENSITIVE = ("memcheck", "initcheck")
SUMMARY_RE = re.compile(r"ERROR SUMMARY:\s*(\d+)\s+error", re.IGNORECASE)
TAIL_CHARS = 4000
#: The kernels the default plan runs: the memory-bound lessons' kernels.
DEFAULT_KERNELS = ("residual_add_relu", "reduction", "transpose")


@dataclass(frozen=True)
class Run:
    """One compute-sanitizer process to start."""

    target: str  # "planted:<case>" or "kernel:<name>"
    tool: str
    caching: bool
    env: dict[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.target.split(":", 1)[0]

    def argv(self, python: str = sys.executable) -> list[str]:
        # Host API errors are not counted: torch and Triton probe the driver
        # with calls that may fail harmlessly, and those would turn a clean
        # run into a false finding. Only device-side errors are the lesson.
        return [
            SANITIZER,
            "--tool",
            self.tool,
            "--report-api-errors",
            "no",
            "--print-limit",
            "20",
            python,
            "-m",
            "scripts.sanitize.target",
            self.target,
        ]


def kernel_names(root: Path = ROOT) -> list[str]:
    """Every kernel, modules and packages, found as discover() finds them
    but by reading the files (no import: the dry run stays free of torch)."""
    return declared_kernels(Path(root) / "kernels")


def plan(
    cases: tuple[str, ...] = findings.CASES,
    kernels: list[str] | tuple[str, ...] | None = DEFAULT_KERNELS,
    tools: tuple[str, ...] = findings.TOOLS,
    *,
    stated_only: bool = True,
) -> list[Run]:
    """The runs, planted bugs first, in a fixed order. ``stated_only``
    keeps the planted runs that findings.EXPECTED has a row for;
    ``kernels=None`` means every kernel in kernels/."""
    for tool in tools:
        if tool not in findings.TOOLS:
            raise ValueError(f"tool must be one of {findings.TOOLS}, got {tool!r}")
    for case in cases:
        if case not in findings.CASES:
            raise ValueError(f"case must be one of {findings.CASES}, got {case!r}")
    runs = []
    no_cache = {findings.CACHING_ENV: "1"}
    for case in cases:
        for tool in tools:
            settings = (True, False) if tool in ALLOCATOR_SENSITIVE else (True,)
            for caching in settings:
                if stated_only and (case, tool, caching) not in findings.EXPECTED:
                    continue
                env = {} if caching else dict(no_cache)
                runs.append(Run(f"planted:{case}", tool, caching=caching, env=env))
    for name in kernel_names() if kernels is None else kernels:
        for tool in tools:
            runs.append(Run(f"kernel:{name}", tool, caching=True))
    return runs


#: PyTorch's stream-ordered allocator (audit F25): every tensor its own
#: cudaMallocAsync allocation, which memcheck tracks, with pooling kept.
ASYNC_ALLOCATOR_ENV = {"PYTORCH_CUDA_ALLOC_CONF": "backend:cudaMallocAsync"}


def device_plan() -> list[Run]:
    """The runs that carry the lesson, most valuable first, for a GPU lease
    of minutes: each starts Python, torch and Triton under the tool, tens of
    seconds apiece, and the file is written after each one."""
    no_cache = {findings.CACHING_ENV: "1"}
    return [
        Run("planted:oob-read", "memcheck", caching=False, env=dict(no_cache)),
        Run("planted:uninit-read", "initcheck", caching=False, env=dict(no_cache)),
        Run("planted:clean", "memcheck", caching=True),
        Run("planted:oob-read", "memcheck", caching=False, env=ASYNC_ALLOCATOR_ENV),
        Run("kernel:residual_add_relu", "memcheck", caching=True),
    ]


def parse_errors(output: str) -> int | None:
    """The count on the tool's last ``ERROR SUMMARY`` line, None if absent."""
    found = SUMMARY_RE.findall(output)
    return int(found[-1]) if found else None


def judge(run: Run, errors: int | None, output: str) -> tuple[str, str, bool | None]:
    """(expect, expected text, matches) for one finished or planned run.
    Kernels are expected clean; planted bugs follow findings.EXPECTED."""
    if run.kind == "kernel":
        expect, text = "clean", ""
    else:
        case = run.target.split(":", 1)[1]
        expect, text, _ = findings.expected(case, run.tool, run.caching)
    if errors is None or expect == "not stated":
        return expect, text, None
    if expect == "clean":
        return expect, text, errors == 0
    return expect, text, errors > 0 and text in output


#: What a dry run starts instead of the tool: a process that prints the
#: summary line a clean run ends with, so the dry run goes through the same
#: start, timeout, parse, judge and write path as a GPU run.
STUB = (sys.executable, "-c", "print('========= ERROR SUMMARY: 0 errors')")


def execute(run: Run, timeout_s: float, dry_run: bool) -> dict:
    """Start one process (the stub, in a dry run) and describe the outcome."""
    argv = run.argv()
    entry = {
        "target": run.target,
        "kind": run.kind,
        "tool": run.tool,
        "caching": run.caching,
        "argv": argv,
        "env": dict(run.env),
        "status": "not run",
        "returncode": None,
        "errors": None,
        "seconds": 0.0,
        "output_tail": "",
    }
    output = ""
    started = time.perf_counter()
    env = dict(os.environ, **run.env)
    try:
        done = subprocess.run(
            list(STUB) if dry_run else argv,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
        output = done.stdout + done.stderr
        status = "stub" if dry_run else "ran"
        entry.update(status=status, returncode=done.returncode)
    except subprocess.TimeoutExpired as exc:
        output = str(exc.stdout or "") + str(exc.stderr or "")
        entry["status"] = "timeout"
    except OSError as exc:
        output = str(exc)
        entry["status"] = "failed to start"
    entry["seconds"] = round(time.perf_counter() - started, 3)
    entry["errors"] = parse_errors(output)
    entry["output_tail"] = output[-TAIL_CHARS:]
    expect, text, matches = judge(run, entry["errors"], output)
    if dry_run:
        matches = None  # the stub's summary says nothing about the kernel
    entry.update(expect=expect, expect_text=text, matches=matches)
    return entry


def sanitizer_version() -> str | None:
    if shutil.which(SANITIZER) is None:
        return None
    done = subprocess.run(
        [SANITIZER, "--version"], capture_output=True, text=True, timeout=60
    )
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return lines[-1] if lines else None


def device_name() -> str | None:
    import torch

    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else None


def run_all(
    out_dir: Path,
    *,
    dry_run: bool,
    runs: list[Run] | None = None,
    timeout_s: float = 300.0,
    git: dict | None = None,
) -> Path:
    """Execute every run (the stub, in a dry run), rewriting the result file
    after each, so a step killed at its time limit keeps the runs that
    finished; the file says how many were planned and whether all ran."""
    runs = plan() if runs is None else runs
    if not dry_run and shutil.which(SANITIZER) is None:
        raise RuntimeError(f"{SANITIZER} is not on the PATH; use --dry-run")
    if git is None:
        from evidence.provenance import git_identity

        git = git_identity()
    data = {
        "schema_version": 1,
        "record": "sanitizer",
        "mode": "dry-run" if dry_run else "cuda",
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git": git,
        "device": None if dry_run else device_name(),
        "compute_sanitizer": None if dry_run else sanitizer_version(),
        "planned_runs": len(runs),
        "complete": False,
        "runs": [],
    }
    path = Path(out_dir) / f"sanitizer.{data['mode']}.json"
    write("sanitizer", path, data)
    for run in runs:
        data["runs"].append(execute(run, timeout_s, dry_run))
        write("sanitizer", path, data)
    data["complete"] = True
    return write("sanitizer", path, data)


def summary(path: Path) -> str:
    """A few lines for the terminal: how many runs matched expectations."""
    from evidence import read

    data = read("sanitizer", path).data
    runs = data["runs"]
    counts = {
        key: sum(r["matches"] is key for r in runs) for key in (True, False, None)
    }
    lines = [
        f"{path}: {len(runs)} runs ({data['mode']})",
        f"as expected {counts[True]}, not as expected {counts[False]}, "
        f"undecided {counts[None]}",
    ]
    lines += [
        f"  NOT AS EXPECTED: {r['target']} {r['tool']} caching={r['caching']} "
        f"errors={r['errors']} (expected {r['expect']})"
        for r in runs
        if r["matches"] is False
    ]
    return "\n".join(lines)
