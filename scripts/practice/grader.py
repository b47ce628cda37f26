"""The practice grader: a learner's kernel against its exercise's contract.

``check(exercise, path)`` reads the learner's file (``source.py``: what is
not Python, what does not parse, what lacks the exercise's function, what
imports someone else's kernel), then runs it in a process of its own under
``TRITON_INTERPRET=1`` with a time and memory limit, from the file's own
folder (``child.py``); Ctrl-C ends that process's whole group. The child only
calls the learner's function on inputs the parent built and writes the
tensors back; every judgement is made here, with the evaluator's own judging
functions (``scripts.qualify.judge``): values against a float64 reference,
never-written elements found by a sentinel fill, stores past either end
found by guard elements, inputs changed, NaN lost, bits that differ between
two calls. Each failing case is one line; a hint follows only when what it
names was seen (``hints.py``). What the file printed comes back, bounded.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from scripts.practice.exercises import HUGE, ROOT, WINDOW, Case, Exercise, Input
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
from scripts.qualify.judge import compare, mutated, never_written, race_problem

#: The byte every output starts as: an element still holding it was never
#: written (0x7F repeated is 3.4e38 in float32 and 2139062143 in int32, values
#: no case's answer holds).
SENTINEL = 0x7F
#: Elements of guard around every input and output: as wide as the widest
#: block an exercise uses, so an unmasked lane lands in the guard.
GUARD = 1024
TIME_LIMIT_S = 120.0
MEMORY_BYTES = 12 << 30  # address space: torch, Triton and a 2 GiB window
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


# --------------------------------------------------------------------------
# The cases' tensors, built here from a seed
# --------------------------------------------------------------------------

DTYPES = {"float32": torch.float32, "int32": torch.int32, "uint8": torch.uint8}


def base_shape(spec: Input) -> tuple[int, ...]:
    """The storage a view is taken from."""
    if spec.view == "transposed":
        return tuple(reversed(spec.shape))
    if spec.view == "step2":
        return (*spec.shape[:-1], 2 * spec.shape[-1])
    if spec.fill == "window":
        return (WINDOW,)  # the child places it at `start` in a 2 GiB tensor
    return spec.shape


def view_of(base: torch.Tensor, spec: Input) -> torch.Tensor:
    if spec.view == "transposed":
        return base.t()
    if spec.view == "step2":
        return base[..., ::2]
    return base


def draw(spec: Input, generator: torch.Generator) -> torch.Tensor:
    shape, dtype = base_shape(spec), DTYPES[spec.dtype]
    if spec.fill in ("counts", "window"):
        # Below 0x7F, so no right answer equals the sentinel byte.
        high = 127 if spec.dtype == "uint8" else 4
        return torch.randint(0, high, shape, generator=generator, dtype=dtype)
    values = torch.randn(shape, generator=generator, dtype=torch.float64)
    if spec.fill == "positive":
        values = values.abs() + 0.01
    elif spec.fill == "large":
        values = values * 30 + 100
    elif spec.fill == "nan":
        values[::7] = float("nan")
    return values.to(dtype)


def build_case(case: Case, seed: int) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return {spec.name: draw(spec, generator) for spec in case.inputs}


def inputs64(case: Case, bases: dict) -> list[torch.Tensor]:
    """The inputs as the learner's function saw them, in float64. A window's
    is the window itself: the 2 GiB tensor it sits in exists only in the
    child."""
    return [view_of(bases[s.name], s).to(torch.float64) for s in case.inputs]


def expected(exercise: Exercise, case: Case, bases: dict) -> torch.Tensor:
    result = exercise.reference(*inputs64(case, bases), **case.params)
    return result.to(DTYPES[case.out_dtype]) if case.out_dtype != "float32" else result


# --------------------------------------------------------------------------
# Running the child
# --------------------------------------------------------------------------


def _limits():  # in the child, before exec
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = MEMORY_BYTES if hard == resource.RLIM_INFINITY else min(MEMORY_BYTES, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def child_command(listing: Path) -> tuple[list[str], dict]:
    """The child's command line and environment: the repository on the
    path (the learner's folder is the working directory, not an import
    root: ``-P`` where Python has it)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = {
        **os.environ,
        "TRITON_INTERPRET": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": path,
    }
    safe = ["-P"] if sys.version_info >= (3, 11) else []
    return [sys.executable, *safe, "-m", "scripts.practice.child", str(listing)], env


def run_child(
    jobs: list[tuple[Path, Path]], limit_s: float, progress: Callable | None = None
) -> str | None:
    """Run the learners' files, job after job, in one process (torch and
    Triton load once); None, or why the child did not finish. ``progress``
    is called about every half second with the running case's name and its
    seconds so far. Ctrl-C (or any exception here) ends the child's group."""
    listing = jobs[0][1].parent / f"jobs-{jobs[0][1].name}.txt"
    listing.write_text("".join(f"{path}\t{job}\n" for path, job in jobs))
    command, env = child_command(listing)
    marker = Path(f"{listing}.progress")
    with (jobs[0][1] / "child.log").open("wb") as log:
        process = subprocess.Popen(
            command, cwd=jobs[0][0].parent, env=env, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_limits,
        )  # fmt: skip
        try:
            code = _wait(process, limit_s, marker, progress)
        finally:
            if process.poll() is None:  # a hang, Ctrl-C, or the parent's fault
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    if code is None:
        return "timeout"
    if code < 0:
        return f"signal {-code}"
    return None if code == 0 else f"exit {code}"


def _wait(process, limit_s: float, marker: Path, progress) -> int | None:
    """The child's exit code, or None past the limit."""
    began = time.monotonic()
    case, since = "", began
    while True:
        try:
            return process.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if now - began > limit_s:
            return None
        current = marker.read_text() if marker.exists() else ""
        if current != case:
            case, since = current, now
        if progress and case:
            progress(case, now - since)


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


def prepare(
    exercise: Exercise, path: Path, job: Path, seed: int, accesses: bool = False
) -> list[dict]:
    """Write one check's inputs and plan into `job`; the bases the parent keeps."""
    from safetensors.torch import save_file

    job.mkdir(parents=True, exist_ok=True)
    plan, all_bases = [], []
    for index, case in enumerate(exercise.cases):
        bases = build_case(case, seed * 1000 + index)
        all_bases.append(bases)
        save_file(bases, str(job / f"in{index}.safetensors"))
        plan.append(
            {
                "case": case.name,
                "inputs": [[s.name, s.view, s.fill, s.dtype] for s in case.inputs],
                "out_shape": list(case.out_shape),
                "out_dtype": case.out_dtype,
                "params": case.params,
            }
        )
    text = json.dumps(
        {
            "function": exercise.function,
            "cases": plan,
            "again": exercise.deterministic,
            "sentinel": SENTINEL,
            "guard": GUARD,
            "huge": HUGE,
            "accesses": accesses,
        }
    )
    (job / "plan.json").write_text(text)
    return all_bases


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
    see :func:`run_child`."""
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
            bases = prepare(exercise, path, job, seed, accesses is not None)
            pending.append((index, exercise, path.resolve(), job, bases, facts))
        while pending:
            jobs = [(item[2], item[3]) for item in pending]
            stopped = run_child(jobs, limit_s, progress)
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
