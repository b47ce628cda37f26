"""python -m scripts.sanitize --out DIR [--dry-run] [--plan device] [--all]
[--tools ...] [--cases ...] [--kernels ...]

Exit codes: 0 done (the file says which runs matched), 2 usage error."""

from __future__ import annotations

from pathlib import Path

from scripts.cli import OneLineParser
from scripts.sanitize import DEFAULT_KERNELS, device_plan, plan, run_all, summary
from snippets.compute_sanitizer import findings


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(
        tool="sanitize",
        prog="python -m scripts.sanitize",
        description="Run compute-sanitizer over the planted bugs and the kernels.",
    )
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument(
        "--dry-run", action="store_true", help="record the commands, run nothing"
    )
    parser.add_argument("--tools", nargs="+", default=list(findings.TOOLS))
    parser.add_argument("--cases", nargs="+", default=list(findings.CASES))
    parser.add_argument(
        "--kernels",
        nargs="*",
        default=None,
        help="kernel names (default: the memory-bound lessons' kernels)",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="every tool on every planted case and allocator setting, every kernel",
    )
    parser.add_argument(
        "--plan",
        choices=("default", "device"),
        default="default",
        help="device: the five runs that carry the lesson, for a short GPU lease",
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per run")
    args = parser.parse_args(argv)
    try:
        kernels = args.kernels
        if kernels is None:
            kernels = None if args.all else list(DEFAULT_KERNELS)
        if not 0 < args.timeout <= 3600:
            raise ValueError(
                f"--timeout must be in (0, 3600] seconds, got {args.timeout}"
            )
        if args.plan == "device":
            runs = device_plan()
        else:
            runs = plan(
                tuple(args.cases), kernels, tuple(args.tools), stated_only=not args.all
            )
        path = run_all(
            args.out, dry_run=args.dry_run, runs=runs, timeout_s=args.timeout
        )
    except (ValueError, RuntimeError) as exc:
        parser.error(str(exc))
    print(summary(path))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
