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
from scripts.practice.source import (  # noqa: F401  (re-exported)
    EXIT_FAILED,
    EXIT_PASSED,
    EXIT_USAGE,
    PracticeError,
    Refused,
    check_source,
    read_source,
)
from scripts.qualify.judge import compare, mutated, never_written

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


@dataclass
class Outcome:
    case: str
    passed: bool
    message: str = ""
    ran: bool = True  # False: a crash or hang in an earlier case stopped it


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


def expected(exercise: Exercise, case: Case, bases: dict) -> torch.Tensor:
    args = []
    for spec in case.inputs:
        # A window's reference is the window itself: the 2 GiB tensor it sits
        # in exists only in the child.
        args.append(view_of(bases[spec.name], spec).to(torch.float64))
    result = exercise.reference(*args, **case.params)
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


def _hint(exercise: Exercise, case: Case, kind: str) -> str:
    """What to look at: the case's own hint for a wrong value (it knows what
    the case is built to catch), then the exercise's for that kind of
    failure, then a general one."""
    general = exercise.hints.get(kind)
    if kind in ("values", "nonfinite", "unwritten") and case.hint:
        if general and general != case.hint:
            return f"{case.hint}; or: {general}"
        return case.hint
    return general or GENERIC[kind]


GENERIC = {
    "values": "compare your indexing with the reference on a small case by hand",
    "nonfinite": "a lane read past the end (the guard holds NaN): mask the load",
    "unwritten": "does every program store, and does the grid cover every block?",
    "past_end": "mask the store: a lane past the end must not write",
    "read_past": "mask the load too: on a GPU an unmasked lane reads whatever "
    "follows the tensor, or faults",
    "before_start": "a store landed before out: is an offset negative?",
    "nan_lost": "NaN inputs must give NaN, as the reference does",
    "mutated": "the inputs must come back unchanged: store only into out",
    "nondeterministic": "two calls gave different bits: is something left over "
    "from the first call, or read before it is written?",
    "raised": "read the exception and the line it names",
    "exit": "the function must return, not end the process (sys.exit, exit, quit)",
    "crash": "the process died at an address outside every tensor (a negative "
    "or wrapped offset, an unmasked lane)",
    "died": "the process ended without a result: os._exit, a fault in native "
    "code, or memory past the limit",
    "timeout": "a loop that never ends, or a grid far larger than the data?",
    "not_run": "not run: the process stopped in an earlier case",
}


def judge_case(exercise, case, bases, returned) -> Outcome:
    """The first thing wrong with one case, with its hint; or a pass."""

    def fail(kind: str, sentence: str) -> Outcome:
        return Outcome(case.name, False, f"{sentence}: {_hint(exercise, case, kind)}")

    status = returned["status"]
    if status == "exit":
        return fail("exit", f"called {returned['error']}")
    if status != "ok":
        where = f" at {returned['line']}" if returned.get("line") else ""
        return fail("raised", f"raised {returned['error']}{where}")
    if "float atomics" in exercise.forbidden:
        floats = [(n, op) for n, op, is_float in returned["atomics"] if is_float]
        if floats:
            name, op = floats[0]
            return fail("forbidden", f"a float atomic ({op}) touched {name}")
    out, guard = returned["out"], returned["out_guard"]
    half = guard.numel() // 2
    if not bool((guard[half:] == SENTINEL).all()):
        return fail("past_end", "wrote past the end of out")
    if not bool((guard[:half] == SENTINEL).all()):
        return fail("before_start", "wrote before the start of out")
    if returned.get("read_past"):
        names = " and ".join(returned["read_past"])
        return fail("read_past", f"a load read past the end of {names}")
    problem = never_written(out, SENTINEL)
    if problem:
        return fail("unwritten", problem)
    for spec in case.inputs:
        if spec.fill == "window":
            continue
        changed = mutated(bases[spec.name], returned[f"in:{spec.name}"])
        if changed:
            return fail("mutated", f"{changed} elements of {spec.name} changed")
    truth = expected(exercise, case, bases)
    if exercise.tolerance[0] == "exact":
        if out.dtype.is_floating_point:
            problem = compare(out, truth.to(out.dtype), 0)
        else:  # integers: equal or not, the first difference named
            problem = close(out, truth.to(torch.float64), 0.0, 0.0)
        if problem:
            return fail("values", problem)
    else:
        problem = close(out, truth, *exercise.tolerance[1:])
        if problem:
            nonfinite = (~out.isfinite() & truth.isfinite()).any()
            return fail("nonfinite" if nonfinite else "values", problem)
        if truth.isnan().any() and (truth.isnan() & ~out.isnan()).any():
            lost = int((truth.isnan() & ~out.isnan()).sum())
            return fail("nan_lost", f"{lost} NaN results came back as numbers")
    if exercise.deterministic:
        if not torch.equal(out.view(torch.int32), returned["again"].view(torch.int32)):
            return fail("nondeterministic", "a second call gave other bits")
    return Outcome(case.name, True)


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


def stopped_outcome(exercise, case, stopped, limit_s, where) -> Outcome:
    """The case a child was in when it hung, crashed or exited."""
    if stopped == "timeout":
        kind, why = "timeout", f"did not finish within {limit_s:g} s"
    elif stopped in {f"signal {int(s)}" for s in BAD_ADDRESS}:
        kind, why = "crash", f"the process died ({stopped}) in {where}"
    else:
        kind, why = "died", f"the process ended ({stopped or 'no result'}) in {where}"
    return Outcome(case.name, False, f"{why}: {_hint(exercise, case, kind)}")


def collect(exercise: Exercise, job: Path, all_bases, stopped, limit_s) -> Report:
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
    stopped_at = None
    for index, case in enumerate(exercise.cases):
        result = job / f"out{index}.json"
        if stopped_at is not None:
            report.outcomes.append(
                Outcome(case.name, False, GENERIC["not_run"], ran=False)
            )
        elif not result.exists():
            where = _last_case(job)
            outcome = stopped_outcome(exercise, case, stopped, limit_s, where)
            report.outcomes.append(outcome)
            stopped_at = index
        else:
            returned = json.loads(result.read_text())
            if returned["status"] == "ok":
                returned.update(load_file(str(job / f"out{index}.safetensors")))
            outcome = judge_case(exercise, case, all_bases[index], returned)
            report.outcomes.append(outcome)
    return report


def static_outcome(exercise: Exercise, path: Path) -> Report | None:
    """A refusal found in the source, or None; PracticeError for a file
    that cannot be run at all."""
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
                )
            ]
        )
    return None


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
                early = static_outcome(exercise, path)
            except PracticeError as exc:
                results[index] = exc
                continue
            if early is not None:
                results[index] = early
                continue
            job = Path(folder) / f"job{index}"
            bases = prepare(exercise, path, job, seed, accesses is not None)
            pending.append((index, exercise, path.resolve(), job, bases))
        while pending:
            jobs = [(p, j) for _, _, p, j, _ in pending]
            stopped = run_child(jobs, limit_s, progress)
            done = []
            for item in pending:
                index, exercise, path, job, bases = item
                done.append(item)
                if (job / "done").exists() or (job / "fatal.json").exists():
                    results[index] = collect(exercise, job, bases, None, limit_s)
                    if accesses is not None and (job / "accesses.txt").exists():
                        accesses[index] = (job / "accesses.txt").read_text()
                    continue
                # The first unfinished job is where the child stopped; the
                # ones after it run in a new child.
                results[index] = collect(exercise, job, bases, stopped, limit_s)
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
