"""Run every device check and pack what it wrote: ``python -m scripts.device_run``.

Usage::

    python -m scripts.device_run --out DIR [--work DIR] [--commit SHA]
        [--dry-run] [--only a,b] [--budget-s S]

``--out`` receives exactly two files, rewritten after every step:
``summary.json`` (what ran, how long, how it ended, which files it wrote) and
``device-run.tar.gz`` (the working folder: logs, JUnit XML, verdicts,
benchmark, sanitizer and serving files, the Inductor capture). The device
hands back at most eight files, so what comes back is the project's choice,
and a run killed at any moment has packed everything up to its last step.

Exit codes: 0 every step passed, 2 usage error, 4 some step failed, overran
or was skipped for want of time (``summary.json`` says which).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from evidence.provenance import COMMIT_ENV, COMMIT_RE
from scripts.cli import OneLineParser
from scripts.device_run.steps import STEPS, Step

ROOT = Path(__file__).resolve().parents[2]
EXIT_OK, EXIT_USAGE, EXIT_FAILED = 0, 2, 4
#: The first run's steps, the required ones: six minutes of a 15-minute lease
#: (scripts/device_run/README.md gives the arithmetic), leaving a rerun of the
#: benchmark.
DEFAULT_BUDGET_S = 360
#: A step past its limit gets SIGINT, then this long to finish its file.
GRACE_S = 10
#: A step may use the time earlier steps left, up to this multiple of its own.
SLACK_MULTIPLE = 2
ARCHIVE = "device-run.tar.gz"
#: The device returns files of at most 16 MiB; logs are cut to fit.
ARCHIVE_LIMIT_BYTES = 15 * 2**20
LOG_TAIL_BYTES = 256 * 2**10


def parse_args(argv):
    parser = OneLineParser(
        tool="device_run",
        exit_code=EXIT_USAGE,
        prog="python -m scripts.device_run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", type=Path, required=True, help="what comes back")
    parser.add_argument("--work", type=Path, help="working folder (default: a temp)")
    parser.add_argument("--commit", help="the commit the tree is at (no .git there)")
    parser.add_argument("--dry-run", action="store_true", help="CPU, small inputs")
    parser.add_argument("--only", default="", help="comma-separated step names")
    parser.add_argument("--budget-s", type=float, default=DEFAULT_BUDGET_S)
    args = parser.parse_args(argv)
    if not 0 < args.budget_s <= 3600 or args.budget_s != args.budget_s:
        parser.error(f"--budget-s must be in (0, 3600], got {args.budget_s}")
    names = {s.name for s in STEPS}
    args.only = [n for n in args.only.split(",") if n]
    unknown = sorted(set(args.only) - names)
    if unknown:
        parser.error(f"unknown step {unknown[0]!r}; steps: {', '.join(sorted(names))}")
    if args.commit is not None and not COMMIT_RE.match(args.commit):
        parser.error(f"--commit {args.commit[:60]!r} is not a commit id (hex digits)")
    for flag, folder in (("--out", args.out), ("--work", args.work)):
        if folder is not None and folder.exists():
            if not folder.is_dir() or any(folder.iterdir()):
                parser.error(f"{flag} {folder} must be a new or empty folder")
    if args.work is not None and args.work.resolve().is_relative_to(args.out.resolve()):
        parser.error("--work must lie outside --out: only two files come back")
    return args


def commit_for(given: str | None) -> str | None:
    """The commit every result file records: given, or this checkout's."""
    if given:
        return given
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return os.environ.get(COMMIT_ENV)
    if done.returncode == 0:
        return done.stdout.strip()
    return os.environ.get(COMMIT_ENV)


def command_for(step: Step, dry: bool, work: Path) -> list[str]:
    template = step.dry if dry else step.gpu
    return [part.format(py=sys.executable, work=work) for part in template]


def stop(process: subprocess.Popen) -> None:
    """SIGINT to the step's process group (the benchmark and the sanitizer
    then finish their files, marked interrupted), then SIGKILL."""
    try:
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    except ProcessLookupError:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def run_step(step: Step, dry: bool, work: Path, limit_s: float, env: dict) -> dict:
    """One step in its own process group, stopped whole if it overruns."""
    if step.needs_module and not (ROOT / step.needs_module).is_file():
        return {"status": "absent", "why": f"{step.needs_module} does not exist yet"}
    command = command_for(step, dry, work)
    env = {**os.environ, **env, **step.env, **({} if dry else step.gpu_env)}
    log = work / "logs" / f"{step.name}.log"
    started = time.monotonic()
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            rc = process.wait(timeout=max(limit_s - GRACE_S, 1))
            status = "passed" if rc == 0 else "failed"
        except subprocess.TimeoutExpired:
            stop(process)
            rc, status = process.returncode, "overran"
    return {
        "status": status,
        "returncode": rc,
        "seconds": round(time.monotonic() - started, 3),
        "limit_s": round(limit_s, 1),
        "command": command,
        "log": log.relative_to(work).as_posix(),
    }


def files_under(work: Path) -> list[str]:
    return sorted(
        p.relative_to(work).as_posix() for p in work.rglob("*") if p.is_file()
    )


def pack(work: Path, out: Path, log_tail: int = LOG_TAIL_BYTES) -> Path:
    """work/ as out/device-run.tar.gz, written whole then renamed (a reader
    never sees half an archive); logs keep their last ``log_tail`` bytes,
    and are cut further if the archive would pass the device's file limit."""
    target = out / ARCHIVE
    while True:
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            for rel in files_under(work):
                data = (work / rel).read_bytes()
                if rel.startswith("logs/") and len(data) > log_tail:
                    data = b"[... cut ...]\n" + data[-log_tail:]
                info = tarfile.TarInfo(f"device-run/{rel}")
                info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
                tar.addfile(info, io.BytesIO(data))
        if buffer.tell() <= ARCHIVE_LIMIT_BYTES or log_tail <= 4096:
            break
        log_tail //= 4
    partial = target.with_name(f".{ARCHIVE}.partial")
    partial.write_bytes(buffer.getvalue())
    os.replace(partial, target)
    return target


def write_summary(summary: dict, work: Path, out: Path) -> None:
    summary["files"] = files_under(work)
    text = json.dumps(summary, indent=1) + "\n"
    (work / "summary.json").write_text(text)
    (out / "summary.json").write_text(text)


def limit_for(step: Step, left: float, later: list[Step]) -> float:
    """What is left of the budget less the limits of the required steps still
    to come: a step inherits the time earlier steps did not use, up to
    ``SLACK_MULTIPLE`` times its own limit (a hung step cannot eat it all)."""
    reserve = sum(s.limit_s for s in later if s.required)
    return max(0.0, min(SLACK_MULTIPLE * step.limit_s, left - reserve))


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    work = (args.work or Path(tempfile.mkdtemp(prefix="device-run-work-"))).resolve()
    (work / "logs").mkdir(parents=True, exist_ok=True)
    for sub in ("qualify", "sanitizer", "bench", "serving", "inductor"):
        (work / sub).mkdir(exist_ok=True)
    commit = commit_for(args.commit)
    env = {COMMIT_ENV: commit} if commit else {}
    deadline = time.monotonic() + args.budget_s
    summary = {
        "started_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "dry_run": args.dry_run,
        "budget_s": args.budget_s,
        "commit": commit,
        "work": str(work),
        "steps": {},
    }
    chosen = [s for s in STEPS if not args.only or s.name in args.only]
    for index, step in enumerate(chosen):
        left = deadline - time.monotonic()
        limit = limit_for(step, left, chosen[index + 1 :])
        if limit < min(5, step.limit_s):
            record = {"status": "skipped", "why": "the run's time budget was spent"}
        else:
            print(f"device_run: {step.name}: {step.what}", flush=True)
            record = run_step(step, args.dry_run, work, limit, env)
        summary["steps"][step.name] = record
        print(f"device_run: {step.name}: {record['status']}", flush=True)
        write_summary(summary, work, out)
        pack(work, out)
    summary["finished_utc"] = datetime.now(UTC).isoformat(timespec="seconds")
    write_summary(summary, work, out)
    pack(work, out)
    bad = [
        n
        for n, r in summary["steps"].items()
        if r["status"] not in ("passed", "absent")
    ]
    if bad:
        print(f"device_run: not passed: {', '.join(bad)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
