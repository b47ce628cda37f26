"""The practice grader: a learner's kernel against its exercise's contract.

``check(exercise, path)`` reads the learner's file (``source.py``: what is
not Python, what does not parse, what lacks the exercise's function, what
imports someone else's kernel), then runs it through the harness at the
learner trust level (``scripts/qualify/learner.py``: a process of its own
under ``TRITON_INTERPRET=1`` with a time and memory limit, from the file's
own folder; Ctrl-C ends that process's whole group). The child
(``scripts/qualify/learner_child.py``) only calls the learner's function on
inputs the parent built and writes the tensors back; every judgement is
made here, with the evaluator's own judging
functions (``scripts.qualify.judge``): values against a float64 reference,
never-written elements found by a sentinel fill, stores past either end
found by guard elements, inputs changed, NaN lost, bits that differ between
two calls. Each failing case is one line; a hint follows only when what it
names was seen (``hints.py``). What the file printed comes back, bounded.
"""

from __future__ import annotations

import json
import signal
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from scripts.practice.exercises import ROOT, Case, Exercise
from scripts.practice.hints import Failure, hint_for, seen
from scripts.practice.hints import unwritten as unwritten_at
from scripts.practice.source import (  # noqa: F401  (re-exported)
    EXIT_FAILED,
    EXIT_PASSED,
    EXIT_USAGE,
    PracticeError,
    Refused,
    check_source,
    mask_facts,
    read_source,
)
from scripts.qualify import learner
from scripts.qualify.judge import compare, mutated, never_written
from scripts.qualify.learner_cases import (  # noqa: F401  (re-exported)
    GUARD,
    SENTINEL,
    build_case,
    dtype_of,
    inputs64,
    prepare,
)
from scripts.qualify.race_report import race_problem

TIME_LIMIT_S = learner.TIME_LIMIT_S
#: Signals that mean an address no tensor holds.
BAD_ADDRESS = (signal.SIGSEGV, signal.SIGBUS)
NOT_RUN = "not run: the process stopped in an earlier case"


@dataclass
class Outcome:
    case: str
    passed: bool
    message: str = ""
    ran: bool = True  # False: a crash or hang in an earlier case stopped it
    hint: str = ""  # the condition whose hint the message carries, if any


@dataclass
class Report:
    """One check: every case's outcome and what the file printed."""

    outcomes: list[Outcome]
    printed: str = ""
    dropped: int = 0  # characters printed past the bound


def expected(exercise: Exercise, case: Case, bases: dict) -> torch.Tensor:
    result = exercise.reference(*inputs64(case, bases), **case.params)
    if case.out_dtype == "float32":
        return result
    return result.to(dtype_of(case.out_dtype))


def _last_case(job: Path) -> str:
    progress = job / "progress.txt"
    if progress.exists():
        return f"case {progress.read_text()!r}"
    return "importing the file"


def find_failure(exercise, case, bases, returned) -> Failure | None:
    """The first thing wrong with one case, or None for a pass."""
    status = returned["status"]
    if status == "exit":
        return Failure("exit", f"called {returned['error']}")
    if status != "ok":
        where = f" at {returned['line']}" if returned.get("line") else ""
        return Failure("raised", f"raised {returned['error']}{where}")
    if "float atomics" in exercise.forbidden:
        floats = [(n, op) for n, op, is_float in returned["atomics"] if is_float]
        if floats:
            name, op = floats[0]
            return Failure("forbidden", f"a float atomic ({op}) touched {name}")
    out, guard = returned["out"], returned["out_guard"]
    if out.numel() and not returned["stored"]:
        if returned["foreign"]:
            where = _shown(returned["foreign"])
            return Failure("foreign", f"out was stored by a kernel in {where}")
        return Failure("no_kernel", "no Triton kernel in your file stored into out")
    if [p for p in returned["dots"] if p != "ieee"]:
        return Failure("tf32", 'a float32 tl.dot ran without input_precision="ieee"')
    half = guard.numel() // 2
    args = inputs64(case, bases)
    failure = lambda kind, sentence, **more: Failure(  # noqa: E731
        kind, sentence, out=out, inputs=args, guard=guard[half:],
        atomics=returned["atomics"], params=case.params, **more,
    )  # fmt: skip
    if not bool((guard[half:] == SENTINEL).all()):
        return failure("past_end", "wrote past the end of out")
    if not bool((guard[:half] == SENTINEL).all()):
        return failure("before_start", "wrote before the start of out")
    if returned.get("read_past"):
        names = " and ".join(returned["read_past"])
        return failure("read_past", f"a load read past the end of {names}")
    problem = never_written(out, SENTINEL)
    if problem:
        return failure("unwritten", problem)
    for spec in case.inputs:
        if spec.fill == "window":
            continue
        changed = mutated(bases[spec.name], returned[f"in:{spec.name}"])
        if changed:
            return failure("mutated", f"{changed} elements of {spec.name} changed")
    truth = expected(exercise, case, bases)
    problem = value_problem(exercise, out, truth)
    if problem:
        nonfinite = bool((~out.isfinite() & truth.isfinite()).any())
        return failure("nonfinite" if nonfinite else "values", problem, truth=truth)
    if truth.isnan().any() and (truth.isnan() & ~out.isnan()).any():
        lost = int((truth.isnan() & ~out.isnan()).sum())
        return failure("nan_lost", f"{lost} NaN results came back as numbers")
    if exercise.deterministic:
        if not torch.equal(out.view(torch.int32), returned["again"].view(torch.int32)):
            return failure("nondeterministic", "a second call gave other bits")
    if returned.get("race"):  # right here, in the interpreter's order only
        return failure("race", race_problem(returned["race"]))
    return None


def _shown(path: str) -> str:
    """A file the learner's run reached, relative to the repository if in it."""
    try:
        return str(Path(path).relative_to(ROOT))
    except ValueError:
        return path


def value_problem(exercise, out: torch.Tensor, truth: torch.Tensor) -> str | None:
    """The values against the reference, under the exercise's tolerance."""
    if exercise.tolerance[0] != "exact":
        return close(out, truth, *exercise.tolerance[1:])
    if out.dtype.is_floating_point:
        return compare(out, truth.to(out.dtype), 0)
    return close(out, truth.to(torch.float64), 0.0, 0.0)  # integers: equal


def close(out: torch.Tensor, truth: torch.Tensor, atol: float, rtol: float):
    """Where the reference is a number, |out - truth| <= atol + rtol * |truth|;
    a sum's error bound grows with its terms, so accumulating exercises say
    their atol and rtol. One sentence, or None."""
    out64 = out.to(torch.float64)
    both_nan = truth.isnan() & out64.isnan()
    ok = both_nan | (out64 == truth)
    ok |= truth.isfinite() & ((out64 - truth).abs() <= atol + rtol * truth.abs())
    ok |= truth.isnan()  # judged separately (nan_lost)
    if bool(ok.all()):
        return None
    first = tuple(int(i) for i in (~ok).nonzero()[0])
    return (
        f"{int((~ok).sum())} of {truth.numel()} elements are off; first at index "
        f"{first}: expected {truth[first].item():.6g}, got {out64[first].item():.6g}"
    )


def stopped_outcome(case, stopped, limit_s, where) -> Outcome:
    """The case a child was in when it hung, crashed or exited."""
    if stopped == "timeout":
        kind, why = "timeout", f"did not finish within {limit_s:g} s"
    elif stopped in {f"signal {int(s)}" for s in BAD_ADDRESS}:
        kind, why = "crash", f"the process died ({stopped}) in {where}"
    elif stopped == f"signal {int(signal.SIGABRT)}":
        kind, why = "aborted", f"the process aborted ({stopped}) in {where}"
    else:
        kind, why = "died", f"the process ended ({stopped or 'no result'}) in {where}"
    return Failure(kind, why)


def explain(exercise: Exercise, found: dict, facts: dict) -> list[Outcome]:
    """Each failure as one line, with the hint of the first condition seen."""
    passed = {name: f.passed for name, f in found.items() if isinstance(f, Outcome)}
    passed |= {name: False for name, f in found.items() if isinstance(f, Failure)}
    unwritten = [f for f in found.values() if isinstance(f, Failure)
                 and f.kind == "unwritten"]  # fmt: skip
    facts = facts | {
        "only_last_unwritten": len(unwritten) > 1
        and all(int(unwritten_at(f.out).sum()) == 1 for f in unwritten)
    }
    outcomes = []
    for case in exercise.cases:
        failure = found[case.name]
        if isinstance(failure, Failure):
            conditions = seen(exercise, case, failure, passed, facts)
            hint, words = hint_for(exercise, conditions)
            message = f"{failure.sentence}: {words}" if words else failure.sentence
            failure = Outcome(case.name, False, message, hint=hint)
        outcomes.append(failure)
    return outcomes


def collect(exercise, job: Path, all_bases, stopped, limit_s, facts) -> Report:
    """Judge what the child wrote for one check."""
    from safetensors.torch import load_file

    printed = job / "printed.txt"
    shown = json.loads(printed.read_text()) if printed.exists() else {}
    report = Report([], shown.get("text", ""), shown.get("dropped", 0))
    fatal = job / "fatal.json"
    if fatal.exists():  # the file did not import, or lacks the function
        error = json.loads(fatal.read_text())
        where = f" at {error['line']}" if error.get("line") else ""
        verb = "called" if error["status"] == "exit" else "raised"
        message = f"importing the file {verb} {error['error']}{where}"
        report.outcomes.append(Outcome("import", False, message))
        return report
    found, stopped_at = {}, None
    for index, case in enumerate(exercise.cases):
        result = job / f"out{index}.json"
        if stopped_at is not None:
            found[case.name] = Outcome(case.name, False, NOT_RUN, ran=False)
        elif not result.exists():
            where = _last_case(job)
            found[case.name] = stopped_outcome(case, stopped, limit_s, where)
            stopped_at = index
        else:
            returned = json.loads(result.read_text())
            if returned["status"] == "ok":
                returned.update(load_file(str(job / f"out{index}.safetensors")))
            failure = find_failure(exercise, case, all_bases[index], returned)
            found[case.name] = failure or Outcome(case.name, True)
    report.outcomes = explain(exercise, found, facts)
    return report


def static_outcome(exercise: Exercise, path: Path) -> tuple[Report | None, dict]:
    """A refusal found in the source, or None, and the source's mask facts;
    PracticeError for a file that cannot be run at all."""
    source = read_source(path)
    try:
        check_source(exercise, source, path)
    except Refused as found:
        return Report(
            [
                Outcome(
                    "contract",
                    False,
                    f"line {found.line} imports {found.what}, a module of this "
                    "repository: a pass must be your own kernel, not the course's, "
                    "a folded solution or the grader's reference",
                    hint="import",
                )
            ]
        ), {}
    return None, mask_facts(source)


def check_many(
    checks: list[tuple[Exercise, Path]],
    seed: int = 0,
    limit_s: float = TIME_LIMIT_S,
    accesses: dict | None = None,
    progress: Callable | None = None,
) -> list[Report | PracticeError]:
    """Several checks in as few processes as possible: one child runs them in
    turn; if one crashes or hangs, the rest go on in a new child. With
    ``accesses`` (a dict), the first case of each check is also watched and
    its loads and stores described, under the check's index. ``progress``:
    see ``scripts.qualify.learner.run``."""
    results: list = [None] * len(checks)
    with tempfile.TemporaryDirectory(prefix="practice-") as folder:
        pending = []
        for index, (exercise, path) in enumerate(checks):
            try:
                early, facts = static_outcome(exercise, path)
            except PracticeError as exc:
                results[index] = exc
                continue
            if early is not None:
                results[index] = early
                continue
            job = Path(folder) / f"job{index}"
            bases = prepare(exercise, job, seed, accesses is not None)
            pending.append((index, exercise, path.resolve(), job, bases, facts))
        while pending:
            jobs = [(item[2], item[3]) for item in pending]
            stopped = learner.run(jobs, limit_s, progress)
            done = []
            for item in pending:
                index, exercise, path, job, bases, facts = item
                done.append(item)
                finished = (job / "done").exists() or (job / "fatal.json").exists()
                if finished:
                    results[index] = collect(exercise, job, bases, None, limit_s, facts)
                    if accesses is not None and (job / "accesses.txt").exists():
                        accesses[index] = (job / "accesses.txt").read_text()
                    continue
                # The first unfinished job is where the child stopped; the
                # ones after it run in a new child.
                results[index] = collect(exercise, job, bases, stopped, limit_s, facts)
                break
            pending = [item for item in pending if item not in done]
    return results


def check(exercise: Exercise, path: Path, seed: int = 0,
          limit_s: float = TIME_LIMIT_S, accesses: dict | None = None,
          progress: Callable | None = None) -> Report:  # fmt: skip
    """Every case's outcome and what the file printed; PracticeError for a
    file that cannot be run. ``accesses``: a dict that receives the first
    case's access description under key 0."""
    (result,) = check_many([(exercise, path)], seed, limit_s, accesses, progress)
    if isinstance(result, PracticeError):
        raise result
    return result
