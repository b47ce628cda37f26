"""Command line of the evaluator: ``python -m scripts.qualify [--task NAME]
PATH`` (without ``--task``, the task whose function PATH defines).

Exit codes: 0 qualified, 1 rejected (refused by the static gate included),
2 harness error (including bad arguments: each is refused in one line before
anything runs), 3 inconclusive here (see ``scripts/qualify/evaluator.py``),
4 internal error of the evaluator (one line, never a traceback).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

from evidence import ROOT
from scripts.cli import OneLineParser
from scripts.qualify.contract import (
    DEFAULT_DEADLINE_S,
    DEFAULT_MEMORY_BYTES,
    DEFAULT_TIMEOUT_S,
    EXIT_HARNESS,
    EXIT_INTERNAL,
)
from scripts.qualify.evaluator import check_limits, qualify, write_verdict
from scripts.qualify.gate import HarnessError
from scripts.qualify.review import escape
from scripts.qualify.task import find, tasks

PROG = "python -m scripts.qualify"
#: Where --json may write inside the repository (anywhere outside it is fine).
JSON_PLACES_IN_REPO = ("results/qualify",)


class ArgumentError(Exception):
    """A bad argument: printed as one line, exit code 2."""


def parse_args(argv):
    parser = OneLineParser(
        prog=PROG,
        tool=PROG,
        exit_code=EXIT_HARNESS,
        description="Qualify a candidate kernel file against a task's contract.",
    )
    parser.add_argument("path", help="the candidate Python file")
    parser.add_argument(
        "--task",
        default=None,
        help="the task: " + ", ".join(sorted(tasks())) + " (default: the one "
        "whose function the file defines)",
    )
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument(
        "--json",
        metavar="OUT",
        help="write the verdict here: a .json file outside the repository, "
        "or under results/qualify/",
    )
    parser.add_argument(
        "--all", action="store_true", help="run every case and list every failure"
    )
    parser.add_argument(
        "--timeout",
        type=_number("--timeout"),
        default=None,
        help=f"seconds per case (default {DEFAULT_TIMEOUT_S['cpu']:g} on cpu, "
        f"{DEFAULT_TIMEOUT_S['cuda']:g} on cuda)",
    )
    parser.add_argument(
        "--deadline",
        type=_number("--deadline"),
        default=None,
        help=f"seconds for the whole run (default {DEFAULT_DEADLINE_S['cpu']:g} "
        f"on cpu, {DEFAULT_DEADLINE_S['cuda']:g} on cuda)",
    )
    parser.add_argument(
        "--memory",
        metavar="GIB",
        default=None,
        help="address-space cap of the candidate's process in GiB, at least 1, "
        f"or 'none' (default {DEFAULT_MEMORY_BYTES['cpu'] >> 30} on cpu, none "
        "on cuda)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="replay a run: the seed its verdict printed (default: a fresh one)",
    )
    parser.add_argument(
        "--reviewed",
        metavar="SHA256",
        default=None,
        help="run a source the static gate refuses, after reading all of it: "
        "its sha256 as the evaluator printed it",
    )
    parser.add_argument(
        "--quiet-source",
        action="store_true",
        help="print the hash but not the whole source",
    )
    return parser.parse_args(argv)


def _number(flag):
    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
        return value

    convert.__name__ = flag  # argparse names the type in its message
    return convert


def memory_bytes(text: str | None) -> int | None | str:
    if text is None:
        return "default"
    if text.lower() == "none":
        return None
    try:
        gib = float(text)
    except ValueError:
        raise ArgumentError(f"--memory: {text!r} is not a number of GiB") from None
    if not math.isfinite(gib) or gib < 1 or gib > 1 << 20:
        raise ArgumentError(f"--memory must be at least 1 GiB, got {text}")
    return int(gib * (1 << 30))


def json_path(text: str | None) -> Path | None:
    """Where --json may write: a .json file (new, or a plain file) whose
    folder exists; inside the repository only under results/qualify/."""
    if text is None:
        return None
    path = Path(text).absolute()
    if path.suffix != ".json":
        raise ArgumentError(f"--json must name a .json file, got {text}")
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ArgumentError(f"--json {text} exists and is not a plain file")
    if not path.parent.is_dir():
        raise ArgumentError(f"--json {text}: no such folder {path.parent}")
    real = path.parent.resolve() / path.name
    if real.is_relative_to(ROOT):
        inside = real.relative_to(ROOT).as_posix()
        if not any(inside.startswith(place + "/") for place in JSON_PLACES_IN_REPO):
            raise ArgumentError(
                f"--json {text} is inside the repository; write it outside, "
                "or under " + " or ".join(JSON_PLACES_IN_REPO)
            )
    return path


def main(argv=None) -> int:
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        memory = memory_bytes(args.memory)
        out = json_path(args.json)
        check_limits(args.device, args.timeout, args.deadline, memory)
        if args.seed is not None and not 0 <= args.seed < 1 << 32:
            raise ArgumentError(f"--seed must be from 0 to 2**32 - 1, got {args.seed}")
        if args.reviewed is not None and not re.fullmatch(
            r"[0-9a-f]{64}", args.reviewed
        ):
            raise ArgumentError("--reviewed must be a sha256 (64 hex digits)")
        if args.task is not None:
            find(args.task)
    except (ArgumentError, HarnessError) as exc:
        print(f"{PROG}: {exc} (see --help)", file=sys.stderr)
        return EXIT_HARNESS
    try:
        verdict = qualify(
            args.path,
            args.device,
            collect_all=args.all,
            timeout_s=args.timeout,
            deadline_s=args.deadline,
            memory_bytes=memory,
            out=sys.stdout,
            show_source=not args.quiet_source,
            seed=args.seed,
            reviewed=args.reviewed,
            task=args.task,
        )
    except Exception as exc:  # a bug of ours: one line, its own exit code
        text = escape(" ".join(str(exc).split()))[:300]
        print(f"{PROG}: internal error: {type(exc).__name__}: {text}", file=sys.stderr)
        return EXIT_INTERNAL
    if out is not None:
        try:
            write_verdict(verdict, out)
        except OSError as exc:
            print(f"{PROG}: --json: {exc}", file=sys.stderr)
            return EXIT_HARNESS
    return verdict["exit_code"]


if __name__ == "__main__":
    sys.exit(main())
