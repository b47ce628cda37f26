"""python -m scripts.practice list | start NAME [DIR] | check NAME FILE

- ``list``: the exercises, in the order of the track.
- ``start NAME [DIR]``: copy the exercise's starter to DIR (default: here) as
  ``<name>.py``; a file that exists is never overwritten.
- ``check NAME FILE [--show-accesses]``: grade FILE under the interpreter,
  case by case, each failure with a hint where one fits what was seen;
  ``--show-accesses`` also draws which elements each program loaded and
  stored. A line on stderr says which case is running while it runs.

NAME may be spelt with hyphens or underscores. Usage errors (a missing file,
a misspelt name) are answered before torch is imported. Exit codes: 0 every
case passed, 1 some case failed, 2 the command or the file must be fixed
first (the message says how), 130 stopped by Ctrl-C.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from scripts.cli import OneLineParser
from scripts.practice.exercises import EXERCISES, check_command
from scripts.practice.source import (
    EXIT_FAILED,
    EXIT_PASSED,
    EXIT_USAGE,
    PracticeError,
    Refused,
    check_source,
    exercise_named,
    read_source,
)

EXIT_STOPPED = 130
#: Lines of the learner's own output shown after the cases.
PRINTED_LINES = 40


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
    target = folder / f"{exercise.folder.name}.py"
    if target.exists():
        raise PracticeError(
            f"{target} exists and is kept as it is; check it with "
            f"`{check_command(exercise.name, str(target))}`, or name another folder"
        )
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(exercise.folder / "starter.py", target)
    return target


class Progress:
    """Which case is running: one line rewritten in place on a terminal,
    a line at 10, 30, 60 and 90 s of a case otherwise."""

    MARKS = (10, 30, 60, 90)

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.case, self.said = "", set()

    def __call__(self, case: str, seconds: float) -> None:
        if case != self.case:
            self.case, self.said = case, set()
        if self.tty:
            self.stream.write(f"\r\033[K  running {case} ({seconds:.0f} s)")
        else:
            due = [m for m in self.MARKS if seconds >= m and m not in self.said]
            if not due:
                return
            self.said.update(due)
            self.stream.write(f"  still running {case} after {due[-1]} s\n")
        self.stream.flush()

    def clear(self) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()


def show(report, total: int, name: str) -> int:
    for outcome in report.outcomes:
        mark = "pass" if outcome.passed else ("skip" if not outcome.ran else "FAIL")
        detail = f": {outcome.message}" if outcome.message else ""
        print(f"  {mark}  {outcome.case}{detail}")
    if report.printed or report.dropped:
        lines = report.printed.splitlines()
        print(f"your file printed ({len(lines)} lines):")
        for line in lines[:PRINTED_LINES]:
            print(f"  | {line[:200]}")
        rest = len(lines) - PRINTED_LINES
        if rest > 0 or report.dropped:
            print(
                f"  | ... {max(rest, 0)} more lines, {report.dropped} more characters"
            )
    passed = sum(o.passed for o in report.outcomes)
    print(f"{passed} of {total} cases pass.")
    return EXIT_PASSED if passed == total else EXIT_FAILED


def parser() -> OneLineParser:
    top = OneLineParser(
        tool="practice", exit_code=EXIT_USAGE, prog="python -m scripts.practice",
        description=__doc__.split("\n\n")[0],
    )  # fmt: skip
    commands = top.add_subparsers(
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
        sub.error = top.error
    return top


def grade(args) -> int:
    exercise = exercise_named(args.name)
    try:  # usage errors before torch; a refusal is the grader's to report
        check_source(exercise, read_source(args.file), args.file)
    except Refused:
        pass
    from scripts.practice.grader import check  # imports torch

    watched = {} if args.show_accesses else None
    progress = Progress()
    try:
        report = check(exercise, args.file, args.seed, accesses=watched,
                       progress=progress)  # fmt: skip
    finally:
        progress.clear()
    code = show(report, len(exercise.cases), exercise.name)
    if watched:
        print(f"{exercise.cases[0].name}, {watched[0]}")
    return code


def main(argv=None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.command == "list":
            list_exercises()
            return EXIT_PASSED
        if args.command == "start":
            target = start(args.name, args.folder)
            print(f"wrote {target}; fill in the kernel, then run:")
            print(f"  {check_command(exercise_named(args.name).name, str(target))}")
            return EXIT_PASSED
        return grade(args)
    except PracticeError as exc:
        print(f"practice: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(
            "practice: stopped by Ctrl-C; the check's process was ended",
            file=sys.stderr,
        )
        return EXIT_STOPPED


if __name__ == "__main__":
    raise SystemExit(main())
