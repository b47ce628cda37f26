"""Run every device check into one folder: ``python -m scripts.device_run``.

Usage::

    python -m scripts.device_run --out DIR [--dry-run] [--only a,b] [--budget-s S]

Exit codes: 0 every step passed, 2 usage error, 4 some step failed, overran
or was skipped for want of time (``DIR/summary.json`` says which).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from scripts.cli import OneLineParser
from scripts.device_run.steps import STEPS, Step

ROOT = Path(__file__).resolve().parents[2]
EXIT_OK, EXIT_USAGE, EXIT_FAILED = 0, 2, 4
#: Nine minutes: one command is at most ten, and a rerun must fit too.
DEFAULT_BUDGET_S = 540


def parse_args(argv):
    parser = OneLineParser(
        tool="device_run",
        exit_code=EXIT_USAGE,
        prog="python -m scripts.device_run",
        description=__doc__,
    )
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--dry-run", action="store_true", help="CPU, tiny scopes")
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
    out = args.out
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        parser.error(f"--out {out} must be a new or empty folder")
    return args


def command_for(step: Step, dry: bool, out: Path) -> list[str]:
    template = step.dry if dry else step.gpu
    return [part.format(py=sys.executable, out=out) for part in template]


def run_step(step: Step, dry: bool, out: Path, limit_s: float) -> dict:
    """One step in its own process group, killed whole if it overruns."""
    if step.needs_module and not (ROOT / step.needs_module).is_file():
        return {"status": "absent", "why": f"{step.needs_module} does not exist yet"}
    command = command_for(step, dry, out)
    env = {**os.environ, **step.env, **({} if dry else step.gpu_env)}
    log = out / "logs" / f"{step.name}.log"
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
            rc = process.wait(timeout=limit_s)
            status = "passed" if rc == 0 else "failed"
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            rc, status = None, "overran"
    return {
        "status": status,
        "returncode": rc,
        "seconds": round(time.monotonic() - started, 3),
        "limit_s": limit_s,
        "command": command,
        "log": log.relative_to(out).as_posix(),
    }


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    out = args.out.resolve()
    (out / "logs").mkdir(parents=True, exist_ok=True)
    for sub in ("qualify", "sanitizer", "bench", "serving", "inductor"):
        (out / sub).mkdir(exist_ok=True)
    deadline = time.monotonic() + args.budget_s
    summary = {
        "started_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "dry_run": args.dry_run,
        "budget_s": args.budget_s,
        "steps": {},
    }
    chosen = [s for s in STEPS if not args.only or s.name in args.only]
    for step in chosen:
        left = deadline - time.monotonic()
        if left < 5:
            record = {"status": "skipped", "why": "the run's time budget was spent"}
        else:
            print(f"device_run: {step.name}: {step.what}", flush=True)
            record = run_step(step, args.dry_run, out, min(step.limit_s, left))
        summary["steps"][step.name] = record
        print(f"device_run: {step.name}: {record['status']}", flush=True)
        (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
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
