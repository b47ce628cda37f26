"""python -m scripts.practice list | start NAME [DIR] | check NAME FILE

- ``list``: the exercises, in the order of the track.
- ``start NAME [DIR]``: copy the exercise's starter to DIR (default: here) as
  ``<name>.py``; a file that exists is never overwritten.
- ``check NAME FILE [--show-accesses]``: grade FILE under the interpreter,
  case by case, each failure with a hint; ``--show-accesses`` also draws
  which elements each program loaded and stored.

Exit codes: 0 every case passed, 1 some case failed, 2 the command or the
file must be fixed first (the message says how).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from scripts.cli import OneLineParser
from scripts.practice.exercises import BY_NAME, EXERCISES
from scripts.practice.grader import (
    EXIT_FAILED,
    EXIT_PASSED,
    EXIT_USAGE,
    PracticeError,
    check,
)


def exercise_named(name: str):
    if name not in BY_NAME:
        close = [n for n in BY_NAME if name.split("-")[0] in n][:3]
        also = f" (did you mean {', '.join(close)}?)" if close else ""
        raise PracticeError(
            f"no exercise {name!r}{also}; `python -m scripts.practice list` lists them"
        )
    return BY_NAME[name]


def list_exercises(out=None) -> None:
    out = out or sys.stdout
    width = max(len(e.name) for e in EXERCISES)
    for exercise in EXERCISES:
        kind = "find and fix" if exercise.find_and_fix else "write"
        print(f"{exercise.name:<{width}}  {kind:<12}  {exercise.title}", file=out)


def start(name: str, folder: Path) -> Path:
    exercise = exercise_named(name)
    if folder.exists() and not folder.is_dir():
        raise PracticeError(f"{folder}: not a folder; name a folder to put it in")
    target = folder / f"{name.replace('-', '_')}.py"
    if target.exists():
        raise PracticeError(
            f"{target} exists and is kept as it is; check it with `python -m "
            f"scripts.practice check {name} {target}`, or name another folder"
        )
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(exercise.folder / "starter.py", target)
    return target


def main(argv=None) -> int:
    parser = OneLineParser(
        tool="practice", exit_code=EXIT_USAGE, prog="python -m scripts.practice",
        description=__doc__.split("\n\n")[0],
    )  # fmt: skip
    commands = parser.add_subparsers(
        dest="command", required=True, parser_class=argparse.ArgumentParser
    )
    commands.add_parser("list", help="the exercises")
    starting = commands.add_parser("start", help="copy a starter file")
    starting.add_argument("name")
    starting.add_argument("folder", nargs="?", type=Path, default=Path("."))
    checking = commands.add_parser("check", help="grade your file")
    checking.add_argument("name")
    checking.add_argument("file", type=Path)
    checking.add_argument("--show-accesses", action="store_true")
    checking.add_argument("--seed", type=int, default=0)
    for sub in (starting, checking):  # one line for their errors too
        sub.error = parser.error
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.command == "list":
            list_exercises()
            return EXIT_PASSED
        if args.command == "start":
            target = start(args.name, args.folder)
            print(f"wrote {target}; fill in the kernel, then run:")
            print(f"  python -m scripts.practice check {args.name} {target}")
            return EXIT_PASSED
        exercise = exercise_named(args.name)
        watched = {} if args.show_accesses else None
        outcomes = check(exercise, args.file, seed=args.seed, accesses=watched)
    except PracticeError as exc:
        print(f"practice: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for outcome in outcomes:
        mark = "pass" if outcome.passed else "FAIL"
        detail = f": {outcome.message}" if outcome.message else ""
        print(f"  {mark}  {outcome.case}{detail}")
    passed = sum(o.passed for o in outcomes)
    total = len(exercise.cases)
    print(f"{passed} of {total} cases pass.")
    if watched:
        print(f"{exercise.cases[0].name}, {watched[0]}")
    return EXIT_PASSED if passed == total and len(outcomes) == total else EXIT_FAILED


if __name__ == "__main__":
    raise SystemExit(main())
