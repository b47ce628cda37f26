"""The page's grader: the CLI's contract, cases and hints
(``scripts/practice/exercises.py``, ``hints.py``, ``source.py``), judged on
the pure-Python subset. :func:`check` returns what the CLI's ``check``
reports, case by case: passed, the one-line message, the hint's condition.

The references and known mistakes are the exercises' own functions, called
with ``torch`` bound to this package's tensor type while they run.
"""

# ruff: noqa: B905  (zips of lists built to one length, in the page's hot loops)

from __future__ import annotations

import contextlib
import io
import math
import struct
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from scripts.practice.exercises import Exercise
from scripts.practice.hints import hint_for
from scripts.practice.source import PracticeError, Refused, check_source, mask_facts
from scripts.practice_web import blocks, cases, diagnose, runtime, tensor
from scripts.practice_web.blocks import Fault, OutsideSubset
from scripts.practice_web.dtypes import BY_NAME
from scripts.practice_web.tensor import Tensor
from scripts.qualify.race_report import race_problem

NOT_RUN = "not run: the process stopped in an earlier case"
PRINT_LIMIT = 4000


@dataclass
class Outcome:
    case: str
    passed: bool
    message: str = ""
    hint: str = ""


@dataclass
class Failure:
    kind: str
    sentence: str
    out: Tensor | None = None
    truth: Tensor | None = None
    inputs: list = field(default_factory=list)
    guard_after: list = field(default_factory=list)
    atomics: list = field(default_factory=list)
    params: dict = field(default_factory=dict)


@dataclass
class Report:
    outcomes: list[Outcome]
    printed: str = ""
    refused: str = ""  # a construct outside the subset: run it locally
    error: str = ""  # the file cannot be run at all (syntax, no function)


@contextlib.contextmanager
def page_torch():
    """``import torch`` inside the exercises' references gives the subset's
    tensor while they run (in Pyodide it always does)."""
    saved = sys.modules.get("torch")
    sys.modules["torch"] = tensor
    try:
        yield
    finally:
        if saved is None:
            sys.modules.pop("torch", None)
        else:
            sys.modules["torch"] = saved


def check(exercise: Exercise, source: str, filename: str = "kernel.py",
          seed: int = 0) -> Report:  # fmt: skip
    """Every case's outcome, as the CLI's grader would report it."""
    try:
        check_source(exercise, source, Path(filename))
    except PracticeError as exc:
        return Report([], error=str(exc))
    except Refused as found:
        message = (f"line {found.line} imports {found.what}, a module of this "
                   "repository: a pass must be your own kernel, not the course's, "
                   "a folded solution or the grader's reference")  # fmt: skip
        return Report([Outcome("contract", False, message, "import")])
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), page_torch():
            report = _run(exercise, source, filename, seed)
    except OutsideSubset as exc:
        report = Report([], refused=str(exc))
    report.printed = printed.getvalue()[:PRINT_LIMIT]
    return report


def _run(exercise, source, filename, seed) -> Report:
    try:
        function = runtime.load(source, filename)[exercise.function]
    except OutsideSubset:
        raise
    except BaseException as exc:  # the learner's file, in one line
        verb = "called" if isinstance(exc, SystemExit) else "raised"
        error = one_line(exc, filename)
        return Report([Outcome("import", False, f"importing the file {verb} {error}")])
    found, stopped = {}, False
    for index, case in enumerate(exercise.cases):
        if stopped:
            found[case.name] = Outcome(case.name, False, NOT_RUN)
            continue
        values = cases.build(case, seed * 1000 + index)
        failure = find_failure(
            exercise, case, values, run_case(function, case, values, exercise, filename)
        )
        stopped = failure is not None and failure.kind == "crash"
        found[case.name] = failure or Outcome(case.name, True)
    return Report(explain(exercise, found, mask_facts(source)))


def one_line(exc: BaseException, filename: str) -> str:
    if isinstance(exc, SystemExit):
        return f"sys.exit({exc.code!r})"
    line = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = f" at line {frame.lineno}: {(frame.line or '').strip()[:120]}"
    message = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {message}{line}"


def run_case(function, case, values, exercise, filename) -> dict:
    args = [cases.guarded(s.name, values[s.name], s) for s in case.inputs]
    out = cases.fresh_out(case)
    blocks.events.clear()
    try:
        function(*args, out, **case.params)
    except OutsideSubset:
        raise
    except SystemExit as exc:
        return {"status": "exit", "error": one_line(exc, filename)}
    except Fault as exc:
        return {"status": "crash", "error": str(exc)}
    except Exception as exc:  # the learner's exception, in one line
        return {"status": "error", "error": one_line(exc, filename)}
    returned = {
        "status": "ok",
        "out": out,
        "args": args,
        "events": list(blocks.events),
    }
    if exercise.deterministic:
        again = cases.fresh_out(case)
        function(*args, again, **case.params)
        returned["again"] = again
    return returned


def _named(storage) -> str:
    return storage.name or "a buffer of your own"


def find_failure(exercise, case, values, returned) -> Failure | None:
    """The first thing wrong with one case, in the CLI grader's order."""
    status = returned["status"]
    if status == "exit":
        return Failure("exit", f"called {returned['error']}")
    if status == "crash":
        return Failure(
            "crash", f"the kernel faulted in case {case.name!r}: {returned['error']}"
        )
    if status != "ok":
        return Failure("raised", f"raised {returned['error']}")
    events, out = returned["events"], returned["out"]
    atomics = [(_named(e[1]), e[2], e[3]) for e in events if e[0] == "atomic"]
    if "float atomics" in exercise.forbidden:
        floats = [(n, op) for n, op, is_float in atomics if is_float]
        if floats:
            return Failure(
                "forbidden", f"a float atomic ({floats[0][1]}) touched {floats[0][0]}"
            )
    stored = any(e[0] in ("store", "atomic") and e[1] is out.storage for e in events)
    if out.numel() and not stored:
        return Failure("no_kernel", "no Triton kernel in your file stored into out")
    if [e for e in events if e[0] == "dot" and e[1] != "ieee"]:
        return Failure("tf32", 'a float32 tl.dot ran without input_precision="ieee"')
    inputs = [cases.float64_view(values[s.name], s) for s in case.inputs]
    guard = out.storage.values
    sentinel = cases.sentinel_value(out.dtype)
    after = guard[out.storage.span[1] :]
    made = lambda kind, sentence, **more: Failure(  # noqa: E731
        kind, sentence, out=out, inputs=inputs, guard_after=after, atomics=atomics,
        params=case.params, **more)  # fmt: skip
    if after.count(sentinel) != len(after):
        return made("past_end", "wrote past the end of out")
    before = guard[: out.storage.span[0]]
    if before.count(sentinel) != len(before):
        return made("before_start", "wrote before the start of out")
    loads = [e[1].name for e in events if e[0] == "guard" and e[2] == "a load"]
    read_past = sorted({name for name in loads if name and name != "out"})
    if read_past:
        return made(
            "read_past", f"a load read past the end of {' and '.join(read_past)}"
        )
    problem = diagnose.never_written(out, sentinel)
    if problem:
        return made("unwritten", problem)
    return _values_failure(exercise, case, values, returned, inputs, made)


def _values_failure(exercise, case, values, returned, inputs, made) -> Failure | None:
    out = returned["out"]
    for spec, arg in zip(case.inputs, returned["args"]):
        low, high = arg.storage.span
        now = arg.storage.values[low:high]
        if now == values[spec.name]:  # the same objects: unchanged, NaN too
            continue
        changed = sum(not _same(a, b) for a, b in zip(now, values[spec.name]))
        if changed:
            return made("mutated", f"{changed} elements of {spec.name} changed")
    truth = exercise.reference(*inputs, **case.params)
    if case.out_dtype != "float32":
        truth = truth.to(BY_NAME[case.out_dtype])
    problem = diagnose.value_problem(exercise, out, truth)
    got, want = out.tolist_flat(), truth.tolist_flat()
    if problem:
        nonfinite = any(
            not math.isfinite(g) and math.isfinite(w) for g, w in zip(got, want)
        )
        return made("nonfinite" if nonfinite else "values", problem, truth=truth)
    lost = sum(w != w and g == g for g, w in zip(got, want))
    if lost:
        return made("nan_lost", f"{lost} NaN results came back as numbers")
    if exercise.deterministic and not all(
        _bits(a) == _bits(b) for a, b in zip(got, returned["again"].tolist_flat())
    ):
        return made("nondeterministic", "a second call gave other bits")
    race = next((e[1] for e in returned["events"] if e[0] == "race"), None)
    if race:  # right here, in the order the programs ran only
        return made("race", race_problem(race))
    return None


def _same(a, b) -> bool:
    return _bits(a) == _bits(b)


def _bits(value):
    if isinstance(value, float):
        return struct.pack("<d", value)
    return value


def explain(exercise, found: dict, facts: dict) -> list[Outcome]:
    """Each failure as one line, with the hint of the first condition seen."""
    passed = {n: f.passed for n, f in found.items() if isinstance(f, Outcome)}
    passed |= {n: False for n, f in found.items() if isinstance(f, Failure)}
    unwritten = [
        f for f in found.values() if isinstance(f, Failure) and f.kind == "unwritten"
    ]
    facts = facts | {"only_last_unwritten": len(unwritten) > 1 and all(
        diagnose.missing_count(f.out) == 1 for f in unwritten)}  # fmt: skip
    outcomes = []
    for case in exercise.cases:
        failure = found[case.name]
        if isinstance(failure, Failure):
            conditions = diagnose.seen(exercise, case, failure, passed, facts)
            hint, words = hint_for(exercise, conditions)
            message = f"{failure.sentence}: {words}" if words else failure.sentence
            failure = Outcome(case.name, False, message, hint)
        outcomes.append(failure)
    return outcomes
