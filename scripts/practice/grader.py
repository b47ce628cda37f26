"""The practice grader: a learner's kernel against its exercise's contract.

``check(exercise, path)`` reads the learner's file (refusing what is not
Python, what does not parse, what lacks the exercise's function, what calls
a Triton operation the contract rules out), then runs it in a process of its
own under ``TRITON_INTERPRET=1`` with a time limit (``scripts/practice/child.py``).
The child only calls the learner's function on inputs the parent built and
writes the tensors back; every judgement is made here, with the evaluator's
own judging functions (``scripts.qualify.judge``): values against a float64
reference, never-written elements found by a sentinel fill, stores past the
end found by guard bytes, inputs changed, NaN lost, bits that differ between
two calls. Each failing case is one line with a hint that names the likely
mistake.
"""

from __future__ import annotations

import ast
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import torch

from scripts.practice.exercises import HUGE, WINDOW, Case, Exercise, Input
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
EXIT_PASSED, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class PracticeError(Exception):
    """What the learner must fix before the grader can run the file."""


@dataclass
class Outcome:
    case: str
    passed: bool
    message: str = ""


# --------------------------------------------------------------------------
# Before running: the file itself
# --------------------------------------------------------------------------


def read_source(path: Path) -> str:
    if not path.exists():
        raise PracticeError(f"{path}: no such file; give the path of your .py file")
    if not path.is_file():
        raise PracticeError(f"{path}: not a file; give the path of your .py file")
    raw = path.read_bytes()
    if len(raw) > 1 << 20:
        raise PracticeError(f"{path}: over 1 MiB; a practice solution is a page")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PracticeError(
            f"{path}: not a Python source file (not UTF-8 text); save it as .py text"
        ) from None


def check_source(exercise: Exercise, source: str, path: Path) -> None:
    """Syntax, the function the exercise calls, and calls it rules out."""
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise PracticeError(
            f"{path}:{exc.lineno}: {exc.msg}; fix the syntax and check again"
        ) from None
    functions = {
        node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)
    }
    if exercise.function not in functions:
        found = ", ".join(sorted(functions)) or "none"
        raise PracticeError(
            f"{path}: defines no top-level function {exercise.function!r} (found: "
            f"{found}); the exercise calls {exercise.signature.split('#')[0].strip()}"
        )
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in exercise.forbidden:
            raise _Forbidden(node.attr, node.lineno)
        if isinstance(node, ast.Name) and node.id in exercise.forbidden:
            raise _Forbidden(node.id, node.lineno)


class _Forbidden(Exception):
    def __init__(self, name: str, line: int):
        super().__init__(name, line)
        self.name, self.line = name, line


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
# Running the child, judging what comes back
# --------------------------------------------------------------------------


def _limits():  # in the child, before exec
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = MEMORY_BYTES if hard == resource.RLIM_INFINITY else min(MEMORY_BYTES, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def run_child(jobs: list[tuple[Path, Path]], limit_s: float) -> str | None:
    """Run the learners' files, job after job, in one process (torch and
    Triton load once); None, or why the child did not finish."""
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    listing = jobs[0][1].parent / f"jobs-{jobs[0][1].name}.txt"
    listing.write_text("".join(f"{path}\t{job}\n" for path, job in jobs))
    command = [sys.executable, "-m", "scripts.practice.child", str(listing)]
    with (jobs[0][1] / "child.log").open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=Path(__file__).resolve().parents[2],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_limits,
        )
        try:
            code = process.wait(timeout=limit_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return "timeout"
    if code < 0:
        return f"signal {-code}"
    return None if code == 0 else f"exit {code}"


def _last_case(job: Path) -> str:
    progress = job / "progress.txt"
    return progress.read_text().strip() if progress.exists() else "(before any case)"


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
    "raised": "read the exception: the interpreter names the line",
    "crash": "the process died: an address outside every tensor (a negative or "
    "wrapped offset, an unmasked lane)",
    "timeout": "a loop that never ends, or a grid far larger than the data?",
}


def judge_case(exercise, case, bases, returned) -> Outcome:
    """The first thing wrong with one case, with its hint; or a pass."""

    def fail(kind: str, sentence: str) -> Outcome:
        return Outcome(case.name, False, f"{sentence}: {_hint(exercise, case, kind)}")

    status = returned["status"]
    if status != "ok":
        return fail("raised", f"raised {returned['error']}")
    out, guard = returned["out"], returned["out_guard"]
    if not bool((guard[GUARD:] == SENTINEL).all()):
        return fail("past_end", "wrote past the end of out")
    if not bool((guard[:GUARD] == SENTINEL).all()):
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


def collect(
    exercise: Exercise, job: Path, all_bases, stopped, limit_s
) -> list[Outcome]:
    """Judge what the child wrote for one check."""
    from safetensors.torch import load_file

    fatal = job / "fatal.json"
    if fatal.exists():  # the file did not import, or lacks the function
        error = json.loads(fatal.read_text())["error"]
        return [Outcome("import", False, f"importing the file raised {error}")]
    outcomes = []
    for index, case in enumerate(exercise.cases):
        result = job / f"out{index}.json"
        if not result.exists():
            if stopped == "timeout":
                kind, why = "timeout", f"did not finish within {limit_s:g} s"
            else:
                kind = "crash"
                why = (
                    f"the process died ({stopped or 'no result'}) in {_last_case(job)}"
                )
            outcomes.append(
                Outcome(case.name, False, f"{why}: {_hint(exercise, case, kind)}")
            )
            break
        returned = json.loads(result.read_text())
        if returned["status"] == "ok":
            returned.update(load_file(str(job / f"out{index}.safetensors")))
        outcomes.append(judge_case(exercise, case, all_bases[index], returned))
    return outcomes


def static_outcome(exercise: Exercise, path: Path) -> list[Outcome] | None:
    """A contract breach found in the source, or None; PracticeError for a
    file that cannot be run at all."""
    source = read_source(path)
    try:
        check_source(exercise, source, path)
    except _Forbidden as found:
        why = exercise.hints.get("forbidden", "")
        return [
            Outcome(
                "contract",
                False,
                f"line {found.line} uses {found.name}, which this exercise rules "
                f"out: {why}".rstrip(": "),
            )
        ]
    return None


def check_many(
    checks: list[tuple[Exercise, Path]],
    seed: int = 0,
    limit_s: float = TIME_LIMIT_S,
    accesses: dict | None = None,
) -> list[list[Outcome] | PracticeError]:
    """Several checks in as few processes as possible: one child runs them in
    turn; if one crashes or hangs, the rest go on in a new child. With
    ``accesses`` (a dict), the first case of each check is also watched and
    its loads and stores described, under the check's index."""
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
            pending.append(
                (
                    index,
                    exercise,
                    path.resolve(),
                    job,
                    prepare(exercise, path, job, seed, accesses is not None),
                )
            )
        while pending:
            stopped = run_child([(p, j) for _, _, p, j, _ in pending], limit_s)
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
          ) -> list[Outcome]:  # fmt: skip
    """Every case's outcome; PracticeError for a file that cannot be run.
    ``accesses``: a dict that receives the first case's access description
    under key 0."""
    (result,) = check_many([(exercise, path)], seed, limit_s, accesses)
    if isinstance(result, PracticeError):
        raise result
    return result
