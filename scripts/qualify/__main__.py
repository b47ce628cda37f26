"""Command line of the evaluator: ``python -m scripts.qualify PATH``.

Exit codes: 0 qualified, 1 rejected, 2 harness error (see
``scripts/qualify/evaluator.py``).
"""

from __future__ import annotations

import argparse
import sys

from scripts.qualify.evaluator import qualify, write_verdict


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="python -m scripts.qualify",
        description="Qualify a residual_add_relu(x, residual) candidate.",
    )
    parser.add_argument("path", help="the candidate Python file")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--json", metavar="OUT", help="write the verdict here")
    parser.add_argument(
        "--all", action="store_true", help="run every case and list every failure"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds per case (default 30 on cpu)",
    )
    parser.add_argument(
        "--quiet-source",
        action="store_true",
        help="print the hash but not the whole source",
    )
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    verdict = qualify(
        args.path,
        args.device,
        collect_all=args.all,
        timeout_s=args.timeout,
        out=sys.stdout,
        show_source=not args.quiet_source,
    )
    if args.json:
        write_verdict(verdict, args.json)
    return verdict["exit_code"]


if __name__ == "__main__":
    sys.exit(main())
