"""Qualify a candidate file against a task's contract, treating the
candidate as hostile.

Usage (from the repository root)::

    python -m scripts.qualify PATH [--task NAME] [--device cpu|cuda]
                              [--json OUT] [--all]
                              [--timeout SECONDS] [--deadline SECONDS]
                              [--memory GIB] [--seed N] [--reviewed SHA256]

PATH is any Python file that defines the task's function with the contract
of the task's kernel (``scripts/qualify/task.py``; see the Kernel
Correctness Contracts page). The evaluator

1. reads the source as bytes, shows it (control characters escaped) with its
   sha256 before running any of it, and lists constructs a reviewer should
   read before trusting a pass (``scripts/qualify/review.py``);
2. refuses, before anything runs, source that uses more than a kernel module
   needs (``scripts/qualify/gate.py``), unless ``--reviewed`` names its
   sha256;
3. builds every input itself from a fresh seed (printed; ``--seed`` replays
   it), shuffles the cases, keeps private copies, and hands the candidate
   its inputs as sealed memory it can only read (a write faults:
   ``scripts/qualify/shared_inputs.py``); runs the candidate in
   a sandbox (``scripts/qualify/sandbox.py``: bubblewrap, or a documented
   fallback, and the verdict says which) with a timeout per case, an overall
   deadline and a memory cap;
4. reads back only strictly checked files (``scripts/qualify/records.py``):
   values, input mutations and changes after a call returned are judged here
   from tensor bytes; a malformed file is a rejection naming it; every
   specialisation the launches report is compiled for sm_90a by a compile
   process of the parent's, from its own copy of the source
   (``scripts/qualify/compile_check.py``);
5. prints every case and a verdict, and returns the verdict as data (kind
   "verdict" of ``evidence``), the contract it checked included.

Exit codes: 0 qualified; 1 rejected (the first failing check and case are
named; ``--all`` runs every case and lists every failure; a refusal by the
static gate is a rejection by ``source-gate``); 2 harness error (no such
file, not UTF-8, a syntax error, no function of the task, bad
arguments, an address-space limit too low to run, a worker that fails
before the candidate runs: its whole message); 3 inconclusive here
(every failure is one a known interpreter divergence explains: the verdict
names it; run on a GPU to decide); 4 internal error of the evaluator (one
line on stderr, never a traceback).

Evidence kind: on ``cpu`` the interpreter shows the candidate computes the
right values for these inputs and that its kernels compile for sm_90a; it
cannot show races or speed, and shapes too large to interpret get their
launch checked, not their values (the case list says which). What no
black-box run can show is listed in ``BLACK_BOX_LIMITS``, and what this run
cannot establish in every verdict's ``cannot_establish``.
"""

from __future__ import annotations

import json
import math
import os
import random
import resource
import secrets
import shutil
import signal
import stat
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from evidence import display_path, sha256_bytes
from evidence import write as write_result
from evidence.provenance import git_identity, software_info
from scripts.qualify import compile_check, gate, records, review, sandbox, shared_inputs
from scripts.qualify import task as tasks
from scripts.qualify.builders import Call, seeded
from scripts.qualify.cases import INTERPRETER_MAX_NUMEL, Case, cases
from scripts.qualify.contract import (
    DEFAULT_DEADLINE_S,
    DEFAULT_MEMORY_BYTES,
    DEFAULT_TIMEOUT_S,
    EXIT_HARNESS,
    MAX_TIMEOUT_S,
    contract,
)
from scripts.qualify.gate import HarnessError, read_source, static_check
from scripts.qualify.judge import (
    CaseResult,
    Failure,
    Judged,
    clip,
    judge_case,
    judge_end_of_run,
)
from scripts.qualify.records import RecordError
from scripts.qualify.sandbox import ForkServer, SandboxGone
from scripts.qualify.task import Task
from scripts.qualify.verdict import Verdict, case_line, review_lines, verdict_line

MIN_MEMORY_BYTES = 2 << 30  # torch and Triton map about 1 GiB


@dataclass
class Limits:
    case_timeout_s: float
    deadline_s: float
    memory_bytes: int | None


# --------------------------------------------------------------------------
# Running the sandboxed child
# --------------------------------------------------------------------------


def run_cases(
    source: bytes,
    device: str,
    selected: list[Case],
    *,
    collect_all: bool,
    limits: Limits,
    report,
    max_numel: int,
    seed: int | None = None,
    task: Task | None = None,
) -> tuple[list[CaseResult], float | None]:
    """Run the candidate on every case in the sandbox and judge each case here
    as its files arrive; `report(case_result)` sees each one. Without
    `collect_all`, the child is stopped at the first failing case. Returns
    the results and the child's CPU seconds (None if it was cut short)."""
    interpreter = device == "cpu"
    task = task or tasks.of_family("elementwise-binary")
    try:
        with seeded(seed):
            built = [case.calls(device, max_numel) for case in selected]
    except (MemoryError, RuntimeError) as exc:
        raise HarnessError(f"the evaluator could not build its inputs: {exc}") from exc
    server = ForkServer.get(device)
    # The parent compiles what the child's launches report, for sm_90a
    run_deadline = time.monotonic() + limits.deadline_s
    compiles = (
        compile_check.RunCompiles(source, run_deadline).start() if interpreter else None
    )
    work = server.new_job()
    results: list[CaseResult] = []
    judged: list[Judged] = []
    started = time.monotonic()

    def finish(case_result: CaseResult) -> None:
        results.append(case_result)
        report(case_result)

    def fail_current(check: str, detail: str) -> None:
        case = selected[min(len(results), len(selected) - 1)]
        if len(results) < len(selected):
            finish(CaseResult(case, "fail", [Failure(check, case.name, 0, detail)]))
        else:  # after the last case: blame the last one
            results[-1].failures.append(Failure(check, case.name, 0, detail))
            results[-1].result = "fail"

    exit_code = None
    cpu_s = None
    try:
        inputs_fd = _write_inputs(work, source, selected, built, task)
        try:
            server.start(work, device, limits.memory_bytes, inputs_fd)
        except SandboxGone as exc:
            raise HarnessError(
                f"the evaluator's fork server ({server.method}) {exc} before "
                "the candidate started; its own error output is above"
            ) from exc
        finally:
            os.close(inputs_fd)
        stage_since = time.monotonic()
        while True:
            if exit_code is None:
                exit_code = server.exit_code(timeout=0.01)
                if exit_code is not None and (fault := server.setup_fault(exit_code)):
                    raise HarnessError(fault)
            words = records.read_progress(work / "progress")
            ended = [int(w.split()[1]) for w in words if w.startswith("end ")]
            if ended != list(range(len(ended))) or len(ended) > len(selected):
                raise RecordError("progress", "cases ended out of order")
            if len(ended) > len(results):  # judge every case that has ended
                index = len(results)
                claim = records.read_claim(work / f"case-{index}.json", "case")
                if compiles is not None:
                    compiles.apply(claim)
                tensors = records.read_tensors(
                    work / f"case-{index}.safetensors", bundle_limit(built[index])
                )
                item = judge_case(
                    index,
                    selected[index],
                    built[index],
                    claim,
                    tensors,
                    interpreter,
                    task,
                )
                judged.append(item)
                finish(item.result)
                stage_since = time.monotonic()
                if item.result.result == "fail" and not collect_all:
                    break
                continue
            if exit_code is not None:
                status = _status(work)
                if len(results) == len(selected) and status.get("stage") == "done":
                    final = records.read_tensors(
                        work / "final.safetensors",
                        sum(bundle_limit(c) for c in built),
                    )
                    judge_end_of_run(judged, final)
                    cpu_s = status["cpu_s"]
                    break
                in_case = any(w.startswith("start ") for w in words)
                if in_case and (
                    written := shared_inputs.input_written(work, exit_code, task.args)
                ):
                    fail_current("inputs-unchanged", written)
                    break
                early = _early_end(status, exit_code, work, in_case, task.function)
                fail_current("completes", early)
                break
            now = time.monotonic()
            if now - started > limits.deadline_s:
                fail_current(
                    "completes",
                    f"the overall deadline of {limits.deadline_s:g} s passed",
                )
                break
            if now - stage_since > limits.case_timeout_s:
                in_case = any(w.startswith("start ") for w in words)
                what = "this case" if in_case else "importing the candidate"
                fail_current(
                    "completes",
                    f"no result after {limits.case_timeout_s:g} s ({what}): a hang",
                )
                break
    except RecordError as exc:
        fail_current("records-well-formed", clip(f"{exc.file} {exc.problem}", 300))
    except FileNotFoundError as exc:
        name = clip(Path(exc.filename or "a file").name, 60)
        fail_current("records-well-formed", f"{name} is missing")
    except SandboxGone as exc:
        fail_current("completes", f"{exc} during the run (the candidate killed it?)")
    finally:
        if exit_code is None:  # still running: stop it, and read its end
            server.kill_job()
            try:
                server.exit_code(timeout=10)
            except SandboxGone:
                pass
        shutil.rmtree(work, ignore_errors=True)
    for case in selected[len(results) :]:
        finish(CaseResult(case, "not run"))
    return results, cpu_s


def _write_inputs(work: Path, source: bytes, selected, built, task: Task) -> int:
    """Write the job's files; return the sealed memfd of its inputs (the
    caller closes it)."""
    plan = {
        "function": task.function,
        "args": list(task.args),
        "cases": [
            {
                "name": case.name,
                "calls": [
                    {"mode": c.mode, "reuse": c.reuse, "out_nbytes": _out_nbytes(c)}
                    for c in calls
                ],
            }
            for case, calls in zip(selected, built, strict=True)
        ],
    }
    (work / "candidate.py").write_bytes(source)
    (work / "plan.json").write_text(json.dumps(plan))
    packer, specs = shared_inputs.pack(built)
    inputs = {case.name: s for case, s in zip(selected, specs, strict=True)}
    torch.save(inputs, work / "inputs.pt")  # layouts; the bytes are in the memfd
    for path in work.iterdir():
        path.chmod(0o644)
    return packer.sealed_fd()


def bundle_limit(calls: list[Call]) -> int:
    """The most bytes a bundle for these calls can hold: each values call's
    output and every input storage, and a header."""
    total = records.MAX_HEADER_BYTES + 8
    bases, out = (0,), 0
    for call in calls:
        if call.mode != "values":
            continue
        if call.args:
            bases = tuple(
                s["base"].numel() * s["base"].element_size() for s in call.args
            )
            out = _out_nbytes(call)
        total += out + sum(bases)
    return total


def _out_nbytes(call: Call) -> int:
    if not call.args or call.args[0].get("kind") != "strided":
        return 0
    first = call.args[0]
    size = first["size"] if call.out_size is None else call.out_size
    return math.prod(size) * first["base"].element_size()


def _status(work: Path) -> dict:
    try:
        return records.read_claim(work / "status.json", "status")
    except FileNotFoundError:
        return {}


def _early_end(
    status: dict, exit_code: int, work: Path, in_case: bool, function: str
) -> str:
    if status.get("stage") == "import":
        return (
            f"importing the candidate raised {clip(status['type'], 60)}: "
            f"{clip(status['message'])}"
        )
    if status.get("stage") == "function":
        return f"after the import, {function} is not a function"
    where = "during this case" if in_case else "while importing the candidate"
    if exit_code < 0:
        try:
            name = signal.Signals(-exit_code).name
        except ValueError:
            name = "unknown"
        how = f"was killed by signal {-exit_code} ({name})"
        if -exit_code == signal.SIGKILL:
            how += ", perhaps at the memory cap"
    else:
        how = f"exited with code {exit_code}"
    detail = f"the candidate's process {how} {where}"
    if stderr := _tail(work / "stderr.txt"):  # its end: where the message is
        shown = clip(stderr, 1 << 16)
        shown = "…" + shown[-299:] if len(shown) > 300 else shown
        detail += f"; its last output: {shown}"
    return detail


def _tail(path: Path, lines: int = 8) -> str:
    """The last lines of a file the child wrote: opened without following a
    link, only if it is a regular file, only its last 4000 bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "(its output file was replaced by something that is not a file)"
        os.lseek(fd, max(0, info.st_size - 4000), os.SEEK_SET)
        data = os.read(fd, 4000)
    finally:
        os.close(fd)
    text = data.decode("utf-8", errors="replace").strip().splitlines()
    return review.escape("\n".join(text[-lines:]))


# --------------------------------------------------------------------------
# The verdict
# --------------------------------------------------------------------------


def software() -> dict:
    """The versions a verdict records (from the one provenance helper)."""
    info = software_info()
    return {key: info[key] for key in ("python", "torch", "triton")}


def check_limits(
    device: str,
    timeout_s: float | None,
    deadline_s: float | None,
    memory_bytes: int | None | str,
) -> Limits:
    """The run's limits, defaults filled in; HarnessError for a bad value."""

    def positive(name, value, default):
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise HarnessError(f"--{name} must be a number of seconds")
        if not math.isfinite(value) or value <= 0 or value > MAX_TIMEOUT_S:
            raise HarnessError(
                f"--{name} must be more than 0 and at most {MAX_TIMEOUT_S:g} s, "
                f"got {value!r}"
            )
        return float(value)

    timeout = positive("timeout", timeout_s, DEFAULT_TIMEOUT_S[device])
    deadline = positive("deadline", deadline_s, DEFAULT_DEADLINE_S[device])
    if memory_bytes == "default":
        memory = DEFAULT_MEMORY_BYTES[device]
        if memory is not None:  # a lower `ulimit -v` already in force wins
            memory = sandbox.clamped(resource.RLIMIT_AS, memory)
    elif memory_bytes is None:
        memory = None
    elif type(memory_bytes) is int and memory_bytes >= 1 << 30:
        memory = memory_bytes
    else:
        raise HarnessError(f"--memory must be at least 1 GiB, got {memory_bytes!r}")
    if memory is not None and memory < MIN_MEMORY_BYTES:
        raise HarnessError(
            f"the address-space limit in force (ulimit -v) allows "
            f"{memory / (1 << 30):.2g} GiB; the candidate's process needs at "
            f"least {MIN_MEMORY_BYTES >> 30} GiB: raise it, or run with --memory none"
        )
    if memory is not None:
        memory = sandbox.clamped(resource.RLIMIT_AS, memory)
    return Limits(timeout, deadline, memory)


def qualify(
    path,
    device: str = "cpu",
    *,
    collect_all: bool = False,
    timeout_s: float | None = None,
    deadline_s: float | None = None,
    memory_bytes: int | None | str = "default",
    out=None,
    show_source: bool = True,
    max_numel: int = INTERPRETER_MAX_NUMEL,
    seed: int | None = None,
    reviewed: str | None = None,
    task: str | None = None,
) -> dict:
    """Qualify one candidate file; returns the verdict as a dict (the same
    one --json writes). Prints to `out` (None: silent). On the CPU, cases
    with more than `max_numel` elements per input get their launch checked
    and not their values. `seed` (default: fresh) draws the inputs and the
    case order; `reviewed` is the sha256 of the source a reviewer has read,
    the only way past the static gate; `task` names the task (default: the
    one whose function the file defines, scripts/qualify/task.py)."""
    path = Path(path)
    seed = secrets.randbits(32) if seed is None else seed
    say = (lambda *a: print(*a, file=out, flush=True)) if out else (lambda *a: None)
    started = time.monotonic()
    sandbox.not_dumpable()
    verdict = Verdict(
        candidate=display_path(path),
        device=device,
        interpreter_max_numel=max_numel if device == "cpu" else None,
        software=software(),
        mode="all" if collect_all else "first-failure",
        seed=seed,
        git=git_identity(),
    )
    options = Options(collect_all, max_numel, show_source, seed, reviewed, task)
    try:
        limits = (timeout_s, deadline_s, memory_bytes)
        results, child_cpu_s, text = _run(path, device, verdict, say, options, limits)
    except Refused as refused:
        verdict.refuse(refused.item)
        say(verdict.printed["verdict"])
        verdict.elapsed_s = round(time.monotonic() - started, 2)
        return verdict.to_dict()
    except HarnessError as exc:
        verdict.status, verdict.exit_code = "harness-error", EXIT_HARNESS
        verdict.harness_error = str(exc)
        say(f"harness error: {exc}")
        verdict.elapsed_s = round(time.monotonic() - started, 2)
        verdict.printed = {"verdict": verdict_line(verdict.to_dict())}
        return verdict.to_dict()
    verdict.conclude(results, text, max_numel)
    verdict.elapsed_s = round(time.monotonic() - started, 2)
    verdict.child_cpu_s = child_cpu_s and round(child_cpu_s, 2)
    verdict.printed = {"verdict": verdict_line(verdict.to_dict())}
    say("")
    for line in review_lines(verdict.to_dict()):
        say(line)
    say("cannot establish here (a pass says nothing about these):")
    for item in verdict.cannot_establish:
        say(f"  - {item}")
    say(verdict.printed["verdict"])
    return verdict.to_dict()


@dataclass
class Options:
    collect_all: bool
    max_numel: int
    show_source: bool
    seed: int
    reviewed: str | None
    task: str | None = None


class Refused(Exception):
    """The static gate refused the source (scripts/qualify/gate.py)."""

    def __init__(self, item: dict):
        self.item = item
        super().__init__(gate.refusal_message(item))


def _run(path, device, verdict, say, options: Options, limits):
    """Read, show and check the candidate, then run its cases: (results,
    the child's CPU seconds, the source text). HarnessError when it cannot."""
    if device not in ("cpu", "cuda"):
        raise HarnessError(f"--device must be cpu or cuda, got {device!r}")
    if not path.is_file():
        raise HarnessError(f"no such file: {display_path(path)}")
    limits = check_limits(device, *limits)
    verdict.limits = {
        "case_timeout_s": limits.case_timeout_s,
        "deadline_s": limits.deadline_s,
        "memory_bytes": limits.memory_bytes,
    }
    if device == "cuda" and not torch.cuda.is_available():
        raise HarnessError("--device cuda: no CUDA device is available")
    data = path.read_bytes()
    verdict.sha256 = sha256_bytes(data)
    say(f"candidate: {review.escape(display_path(path))}")
    say(f"sha256:    {verdict.sha256}")
    if options.reviewed is not None and options.reviewed != verdict.sha256:
        raise HarnessError(
            "--reviewed names another version of this file: read it again "
            f"and pass its sha256 ({verdict.sha256})"
        )
    if options.show_source:
        lines = review.source_lines(data.decode("utf-8", errors="backslashreplace"))
        say(f"source ({len(lines)} lines), shown before it runs:")
        for number, line in enumerate(lines, start=1):
            say(f"  {number:4d} | {review.escape(line)}")
    source, text = read_source(path)
    tree = gate.parse(path, text)
    task = tasks.find(options.task) if options.task else tasks.for_source(text)
    static_check(path, tree, task.function, task.signature)
    verdict.contract = contract(task)
    verdict.review = review.suspicious(text)
    refused = gate.refusals(text)
    overridden = bool(refused) and options.reviewed == verdict.sha256
    verdict.gate = {"refused": refused, "overridden": overridden}
    if refused and not overridden:
        raise Refused(refused[0])
    for item in refused:
        say(f"gate overridden by review: {gate.refusal_message(item)}")
    verdict.isolation = sandbox.isolation(device)
    selected = cases(task)
    random.Random(options.seed).shuffle(selected)  # an order no one can plan for
    n_kernel = sum(c.kind == "kernel" for c in selected)
    backend = (
        "Triton interpreter: values for these inputs, not speed"
        if device == "cpu"
        else "GPU"
    )
    say(f"device:    {device} ({backend})")
    say(f"isolation: {verdict.isolation['method']}")
    say(f"seed:      {options.seed} (replay with --seed {options.seed})")
    say(
        f"running {n_kernel} kernel cases and {len(selected) - n_kernel} "
        f"unsupported-input cases in the sandbox, at most "
        f"{limits.case_timeout_s:g} s per case and {limits.deadline_s:g} s "
        "in all"
    )
    say("")

    def report(case_result: CaseResult) -> None:
        entry = case_result.to_dict()
        entry["mode"] = case_result.case.mode_on(device, options.max_numel)
        say(case_line(entry))

    results, child_cpu_s = run_cases(
        source,
        device,
        selected,
        collect_all=options.collect_all,
        limits=limits,
        report=report,
        max_numel=options.max_numel,
        seed=options.seed,
        task=task,
    )
    return results, child_cpu_s, text


def write_verdict(verdict: dict, out: str | Path) -> Path:
    """Write a verdict (validated against the "verdict" schema) to `out`."""
    return write_result("verdict", Path(out), verdict)
