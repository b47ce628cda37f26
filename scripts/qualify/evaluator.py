"""Qualify a candidate ``residual_add_relu(x, residual)`` against its contract,
treating the candidate as hostile.

Usage (from the repository root)::

    python -m scripts.qualify PATH [--device cpu|cuda] [--json OUT] [--all]
                              [--timeout SECONDS] [--deadline SECONDS]
                              [--memory GIB]

PATH is any Python file that defines ``residual_add_relu(x, residual)`` with
the contract of ``kernels/residual_add_relu.py`` (see the Kernel Correctness
Contracts page). The evaluator

1. reads the source as bytes, shows it (control characters escaped) with its
   sha256 before running any of it, and lists constructs a reviewer should
   read before trusting a pass (``scripts/qualify/review.py``);
2. builds every input itself and keeps private copies; runs the candidate in
   a sandbox (``scripts/qualify/sandbox.py``: bubblewrap, or a documented
   fallback, and the verdict says which) with a timeout per case, an overall
   deadline and a memory cap;
3. reads back only strictly checked files (``scripts/qualify/records.py``):
   values, input mutations and changes after a call returned are judged here
   from tensor bytes; a malformed file is a rejection naming it;
4. prints every case and a verdict, and returns the verdict as data (kind
   "verdict" of ``evidence``), the contract it checked included.

Exit codes: 0 qualified; 1 rejected (the first failing check and case are
named; ``--all`` runs every case and lists every failure); 2 harness error
(no such file, not UTF-8, a syntax error, no function ``residual_add_relu``,
bad arguments); 3 inconclusive here (every failure is one a known interpreter
divergence explains: the verdict names it; run on a GPU to decide).

Evidence kind: on ``cpu`` the interpreter shows the candidate computes the
right values for these inputs and that its kernels compile for sm_90a; it
cannot show races or speed, and shapes too large to interpret get their
launch checked, not their values (the case list says which). What no
black-box run can show is listed in ``BLACK_BOX_LIMITS``.
"""

from __future__ import annotations

import ast
import atexit
import json
import math
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch

from evidence import ROOT, display_path, sha256_bytes
from evidence import write as write_result
from evidence.provenance import software_info
from kernels.launches import GRID_LIMITS
from kernels.residual_add_relu import DESCRIPTOR
from scripts.qualify import records, review, sandbox, worker
from scripts.qualify.cases import (
    BOTH,
    INTERPRETER_MAX_NUMEL,
    Call,
    Case,
    bench_dtype,
    bench_shapes,
    cases,
)
from scripts.qualify.records import RecordError
from snippets.kernel_correctness_contracts.contract import (
    allowed_ulps,
    bits_changed,
    names_argument,
    nan_mismatch,
    value_mismatch,
)

EXIT_QUALIFIED, EXIT_REJECTED, EXIT_HARNESS, EXIT_INCONCLUSIVE = 0, 1, 2, 3
EXIT_CODES = {
    "qualified": EXIT_QUALIFIED,
    "rejected": EXIT_REJECTED,
    "harness-error": EXIT_HARNESS,
    "inconclusive": EXIT_INCONCLUSIVE,
}
SCHEMA_VERSION = 3
FUNCTION = worker.CANDIDATE_FUNCTION
DEFAULT_TIMEOUT_S = {"cpu": 30.0, "cuda": 180.0}  # per case, and the import
DEFAULT_DEADLINE_S = {"cpu": 300.0, "cuda": 1200.0}  # the whole run
#: Address-space cap of the candidate's process. None on a GPU: CUDA
#: reserves far more address space than it uses.
DEFAULT_MEMORY_BYTES = {"cpu": sandbox.MEMORY_BYTES_DEFAULT, "cuda": None}
MAX_TIMEOUT_S = 3600.0

# --------------------------------------------------------------------------
# Checks, in the order a case applies them (the first failure is reported)
# --------------------------------------------------------------------------

CHECKS = {
    "completes": "the call returns: no exception, crash or hang on a supported "
    "input, within the per-case timeout and the overall deadline",
    "records-well-formed": "every file the sandboxed process writes back is "
    "in its strict format and agrees with the others",
    "grid-limits": "every launch's grid is one a GPU accepts (x up to "
    "2**31 - 1 programs, y and z up to 65535)",
    "launches-kernel": "every call on a non-empty input launches a Triton "
    "kernel defined in the candidate's file, with the output's storage among "
    "its arguments",
    "compiles-for-gpu": "every kernel the candidate launches compiles for "
    "sm_90a ahead of time (on the CPU run)",
    "output-type": "the result is a plain torch.Tensor of the inputs' shape, "
    "dtype and device",
    "output-fresh": "the result shares no memory with an input or with an "
    "earlier result",
    "inputs-unchanged": "both inputs' storages are bit-for-bit what they were "
    "before the call, and no in-place write touched them (even one undone)",
    "values": "every element whose reference is a number matches it within "
    "the dtype's tolerance",
    "nan-mask": "every element whose reference is NaN is NaN",
    "deterministic": "a second call on the same inputs gives the same bits",
    "unchanged-after-return": "after the last case, every earlier result and "
    "every input still holds the bits it held when its call returned",
    "error-type": "an unsupported input raises the contract's exception type",
    "error-message": "the exception's message names the offending argument",
    "validates-first": "no kernel is launched before the error is raised",
}
CHECK_ORDER = list(CHECKS)

#: Known places where the Triton interpreter computes something the compiled
#: kernel does not. A CPU run whose every failure one of these explains is
#: "inconclusive here", not rejected.
DIVERGENCES = {
    "interpreter-float64-to-bfloat16": {
        "triton": "3.8",
        "detail": "the Triton 3.8 interpreter casts float64 to bfloat16 "
        "wrongly (0.3945 becomes 0.0, 1.0 becomes 9.2e-41); compiled code "
        "rounds correctly",
        "source": re.compile(r"float64|fp64|tl\.double"),
        "dtypes": ("bfloat16",),
        "checks": ("values", "nan-mask", "deterministic"),
    },
}

#: What testing from outside cannot establish, however many cases it runs.
BLACK_BOX_LIMITS = [
    "a candidate that detects the evaluator (its inputs, its process, the "
    "sandbox) and behaves only while watched",
    "a candidate that turns bad after many calls, at other sizes, at a later "
    "date or on another GPU",
    "races and ordering bugs the interpreter's one-program-at-a-time run never shows",
    "claims the sandboxed process makes about itself (launches, exceptions, "
    "memory sharing): a candidate running there can forge them; review the "
    "listed constructs before trusting a pass",
]


# --------------------------------------------------------------------------
# The contract, as data: every fact a page states about the evaluator
# --------------------------------------------------------------------------


def contract() -> dict:
    """What this evaluator checks, as plain data. Every verdict carries it,
    so the pages read it from the committed files and never import this
    module (a test checks the committed copy against this function)."""
    shapes, source = bench_shapes()
    case_list = []
    for number, case in enumerate(cases(), start=1):
        case_list.append(
            {
                "number": number,
                "name": case.name,
                "group": case.group,
                "kind": case.kind,
                "inputs": case.inputs,
                "catches": case.catches,
                "mode": {"cpu": case.mode_on("cpu"), "cuda": case.mode_on("cuda")},
            }
        )
    return {
        "function": FUNCTION,
        "kernel_file": DESCRIPTOR_FILE,
        "exit_codes": dict(EXIT_CODES),
        "checks": [{"name": n, "passes_when": t} for n, t in CHECKS.items()],
        "cases": case_list,
        "interpreter_max_numel": INTERPRETER_MAX_NUMEL,
        "grid_limits": list(GRID_LIMITS),
        "bench_shapes": [list(s) for s in shapes],
        "bench_shapes_source": source,
        "bench_dtype": {
            d: str(bench_dtype(d)).removeprefix("torch.") for d in ("cpu", "cuda")
        },
        # The kernel's own figures the decision memo weighs the verdict with.
        "compare_shapes": {
            d: [DESCRIPTOR.shape_text(s) for s in DESCRIPTOR.shapes_for("compare", d)]
            for d in ("cpu", "cuda")
        },
        "max_speedup": dict(DESCRIPTOR.max_speedup),
        "divergences": {
            name: {"triton": d["triton"], "detail": d["detail"]}
            for name, d in DIVERGENCES.items()
        },
        "black_box_limits": list(BLACK_BOX_LIMITS),
        "defaults": {
            "case_timeout_s": dict(DEFAULT_TIMEOUT_S),
            "deadline_s": dict(DEFAULT_DEADLINE_S),
            "memory_bytes": dict(DEFAULT_MEMORY_BYTES),
        },
        "review_constructs": review.construct_names(),
        "goals": [
            {
                "regime": g.regime,
                "must": [_target(t) for t in g.must],
                "stretch": [_target(t) for t in g.stretch],
            }
            for g in DESCRIPTOR.goals
        ],
    }


DESCRIPTOR_FILE = f"kernels/{DESCRIPTOR.name}.py"


def _target(target) -> dict:
    return {
        "metric": target.metric,
        "at_least": target.at_least,
        "shape": dict(target.shape) if target.shape is not None else None,
        "note": target.note,
    }


# --------------------------------------------------------------------------
# The parent's copy of every input, and the reference
# --------------------------------------------------------------------------


def reference(x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    """The answer: eager PyTorch on pristine CPU copies."""
    return torch.relu(x + residual)


@dataclass
class Pristine:
    """The parent's untouched copy of one call's inputs."""

    bases: list[torch.Tensor]
    views: list[torch.Tensor]


def pristine_for(calls: list[Call]) -> list[Pristine | None]:
    result: list[Pristine | None] = []
    for call in calls:
        if call.mode != "values":
            result.append(None)
            continue
        if call.reuse == "same":
            result.append(result[-1])
            continue
        if call.reuse == "refill":
            before = result[-1]
            bases = [b.clone() for b in before.bases]
            views = [
                b.as_strided(v.shape, v.stride(), v.storage_offset())
                for b, v in zip(bases, before.views, strict=True)
            ]
            for view, values in zip(views, call.refill, strict=True):
                view.copy_(values)
            result.append(Pristine(bases, views))
            continue
        bases = [call.x["base"].clone(), call.residual["base"].clone()]
        views = [
            base.as_strided(spec["size"], spec["stride"], spec["offset"])
            for base, spec in zip(bases, (call.x, call.residual), strict=True)
        ]
        result.append(Pristine(bases, views))
    return result


def expected_meta(call: Call, pristine: Pristine | None) -> tuple[list, str]:
    if pristine is not None:
        return list(pristine.views[0].shape), str(pristine.views[0].dtype)
    return list(call.x["size"]), call.x["dtype"]


# --------------------------------------------------------------------------
# Judging one call (parent side)
# --------------------------------------------------------------------------


@dataclass
class Failure:
    check: str
    case: str
    call: int  # 1-based; 0 for the case as a whole
    detail: str

    def to_dict(self) -> dict:
        return {
            "check": self.check,
            "case": self.case,
            "call": self.call,
            "detail": self.detail,
        }


def _launch_text(launches: list[dict]) -> str:
    names = sorted({_clip(r["kernel"], 60) for r in launches})
    return ", ".join(names) if names else "none"


def _tensor(tensors: dict, name: str, file: str) -> torch.Tensor:
    if name not in tensors:
        raise RecordError(file, f"holds no tensor {name!r}")
    return tensors[name]


def judge_kernel_call(call, number, claim, tensors, pristine, previous, interp):
    """(failures as (check, detail), checks evaluated, the output's bytes or
    None) for a supported input. Raises RecordError for a child file that
    contradicts itself."""
    failures: list[tuple[str, str]] = []
    evaluated = 0
    launches = claim["launches"]
    violations = [r["violation"] for r in launches if r["violation"]]

    def check(name, problem):
        nonlocal evaluated
        evaluated += 1
        if problem:
            failures.append((name, problem))
        return not problem

    raised = claim["raised"]
    if raised and violations:
        check("grid-limits", f"{violations[0]}; the launch fails on a GPU")
        return failures, evaluated, None
    if not check(
        "completes", raised and f"raised {raised['type']}: {_clip(raised['message'])}"
    ):
        return failures, evaluated, None
    check("grid-limits", violations and violations[0])
    shape, dtype = expected_meta(call, pristine)
    numel = math.prod(shape)
    out = claim["output"]
    if out is None:
        raise RecordError("case.json", f"call {number} has neither output nor error")
    if numel:
        own = [r for r in launches if r["own"]]
        writing = [r for r in own if r["writes_output"]]
        if not launches:
            problem = "launched no Triton kernel"
        elif not own:
            problem = (
                f"launched only kernels defined elsewhere: {_launch_text(launches)}"
            )
        elif not writing and out["plain"]:
            problem = (
                f"launched {_launch_text(own)}, but none was given the "
                "returned tensor's storage: the result was computed another way"
            )
        else:
            problem = None
        check("launches-kernel", problem)
        broken = [r for r in own if r["compile_error"]]
        check(
            "compiles-for-gpu",
            broken
            and f"{_clip(broken[0]['kernel'], 60)} does not compile for sm_90a: "
            f"{_clip(broken[0]['compile_error'], 200)}",
        )
    meta_problem = None
    values = None
    if not out["plain"]:
        meta_problem = f"returned a {_clip(out['type'], 60)}, not a torch.Tensor"
    elif call.mode == "values":
        values = _tensor(tensors, f"c{number}.out", "case.qt")
        got_dtype = str(values.dtype)
        if out["shape"] != list(values.shape) or out["dtype"] != got_dtype:
            raise RecordError("case.qt", f"call {number}: bytes and claims disagree")
    if meta_problem is None:
        got_shape, got_dtype = out["shape"], out["dtype"]
        if got_shape != shape or got_dtype != dtype:
            meta_problem = (
                f"returned shape {tuple(got_shape or ())} {got_dtype}; expected "
                f"{tuple(shape)} {dtype}"
            )
        elif out["device"] != claim["input_device"]:
            meta_problem = (
                f"returned a tensor on {out['device']}, inputs on "
                f"{claim['input_device']}"
            )
    if not check("output-type", meta_problem):
        return failures, evaluated, None
    check(
        "output-fresh",
        out["aliases"]
        and "the result shares memory with " + " and ".join(out["aliases"]),
    )
    if call.mode != "values":
        return failures, evaluated, None
    changed = []
    for name, before in zip(BOTH, pristine.bases, strict=True):
        after = _tensor(tensors, f"c{number}.{name}", "case.qt")
        if after.dtype != before.dtype or after.shape != before.shape:
            raise RecordError("case.qt", f"call {number}: {name}'s storage resized")
        if (count := bits_changed(before, after)) > 0:
            changed.append(f"{name}: {count} elements of its storage")
    for name in claim["inputs_written"]:
        if name in BOTH and not any(c.startswith(name + ":") for c in changed):
            changed.append(f"{name}: in place, restored before returning")
    check("inputs-unchanged", changed and "the call wrote to " + "; ".join(changed))
    expected = reference(*pristine.views)
    ulps = allowed_ulps(expected.dtype, interp)
    check("values", value_mismatch(values, expected, ulps))
    check("nan-mask", nan_mismatch(values, expected))
    if call.reuse == "same" and previous is not None:
        differ = bits_changed(previous, values)
        check(
            "deterministic",
            differ
            and f"{differ} of {values.numel()} elements "
            "differ bit for bit from the previous call on the same inputs",
        )
    return failures, evaluated, values


def judge_error_call(call, claim) -> tuple:
    failures = []
    raised = claim["raised"]
    if raised is None:
        out = claim["output"] or {}
        what = _clip(out.get("type", "value"), 60)
        return [
            (
                "error-type",
                f"{call.note}: returned a {what} instead of "
                f"raising {call.expect_error}",
            )
        ], 1
    if call.expect_error not in raised["mro"]:
        return [
            (
                "error-type",
                f"{call.note}: raised {_clip(raised['type'], 60)}: "
                f"{_clip(raised['message'])}; the contract says "
                f"{call.expect_error}",
            )
        ], 1
    if not names_argument(raised["message"], call.expect_names):
        failures.append(
            (
                "error-message",
                f"{call.note}: {_clip(raised['type'], 60)}("
                f"{_clip(raised['message'])!r}) does not name "
                + " or ".join(call.expect_names),
            )
        )
    if claim["launches"]:
        failures.append(
            (
                "validates-first",
                f"{call.note}: launched "
                f"{_launch_text(claim['launches'])} before raising "
                f"{_clip(raised['type'], 60)}",
            )
        )
    return failures, 3


def _clip(text: str, limit: int = 160) -> str:
    text = review.escape(" ".join(str(text).split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class CaseResult:
    case: Case
    result: str  # "pass", "fail", "not run"
    failures: list[Failure] = field(default_factory=list)
    calls: int = 0
    checks: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {
            "name": self.case.name,
            "group": self.case.group,
            "kind": self.case.kind,
            "mode": None,
            "result": self.result,
            "calls": self.calls,
            "checks": self.checks,
            "failures": [f.to_dict() for f in self.failures],
            "seconds": round(self.seconds, 3),
        }


@dataclass
class Judged:
    """One case judged, with what the end-of-run check compares against."""

    result: CaseResult
    outputs: dict[str, torch.Tensor]  # "k{i}.c{n}.out" -> bytes at return
    inputs: dict[str, torch.Tensor]  # "k{i}.chain{j}.x" -> pristine storage
    where: dict[str, int]  # tensor name -> call number


def judge_case(index, case, calls, claim, tensors, interpreter) -> Judged:
    pristine = pristine_for(calls)
    if claim["name"] != case.name or len(claim["calls"]) != len(calls):
        raise RecordError(f"case-{index}.json", "names another case or call count")
    result = CaseResult(case, "pass", calls=len(calls), seconds=claim["seconds"])
    judged = Judged(result, {}, {}, {})
    previous = None
    chain = -1
    for number, (call, rec, pure) in enumerate(
        zip(calls, claim["calls"], pristine, strict=True), start=1
    ):
        if call.mode == "error":
            found, evaluated = judge_error_call(call, rec)
            values = None
        else:
            found, evaluated, values = judge_kernel_call(
                call, number, rec, tensors, pure, previous, interpreter
            )
        if call.reuse is None:
            chain += 1
        if call.mode == "values":
            if values is not None:
                judged.outputs[f"k{index}.c{number}.out"] = values
                judged.where[f"k{index}.c{number}.out"] = number
            for name, base in zip(BOTH, pure.bases, strict=True):
                judged.inputs[f"k{index}.chain{chain}.{name}"] = base
                judged.where[f"k{index}.chain{chain}.{name}"] = number
        result.checks += evaluated
        result.failures += [Failure(c, case.name, number, d) for c, d in found]
        previous = values
    result.failures.sort(key=lambda f: (f.call, CHECK_ORDER.index(f.check)))
    if result.failures:
        result.result = "fail"
    return judged


def judge_end_of_run(judged: list[Judged], final: dict) -> int:
    """Compare every earlier output and input with the end-of-run bytes;
    failures are added to their cases. Returns the checks evaluated."""
    evaluated = 0
    for item in judged:
        case = item.result.case.name
        for name, expected in [*item.outputs.items(), *item.inputs.items()]:
            evaluated += 1
            now = _tensor(final, name, "final.qt")
            if now.dtype != expected.dtype or now.shape != expected.shape:
                raise RecordError("final.qt", f"{name} changed shape or dtype")
            differ = bits_changed(expected, now)
            if not differ:
                continue
            call = item.where[name]
            what = (
                f"the result of call {call}"
                if name.endswith(".out")
                else f"{name.rsplit('.', 1)[1]}'s storage (last used by call {call})"
            )
            item.result.failures.append(
                Failure(
                    "unchanged-after-return",
                    case,
                    call,
                    f"{what} changed after the call returned: {differ} of "
                    f"{expected.numel()} elements differ at the end of the run",
                )
            )
            item.result.result = "fail"
        item.result.checks += 0
    return evaluated


# --------------------------------------------------------------------------
# Running the sandboxed child
# --------------------------------------------------------------------------


class HarnessError(Exception):
    """The evaluator could not evaluate: no file, no function, bad syntax."""


class ForkServer:
    """One long-lived `python -m scripts.qualify.worker` process per device,
    inside the sandbox: it imports torch and Triton once and forks a fresh,
    further isolated process per candidate, so a candidate costs a fraction
    of a second to start instead of the seconds an `import torch` takes.
    Triton decides at import time whether its own library functions are
    interpreted, so the server starts with TRITON_INTERPRET set."""

    _instances: dict[str, ForkServer] = {}

    def __init__(self, device: str):
        self.device = device
        self.method = "bubblewrap" if sandbox.bwrap_works() else "fallback"
        self.jobs = sandbox.make_jobs_dir()
        env = dict(os.environ, TRITON_INTERPRET="1" if device == "cpu" else "0")
        command = [sys.executable, "-m", "scripts.qualify.worker"]
        if self.method == "bubblewrap":
            command = sandbox.bwrap_args(self.jobs, device) + command
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
        atexit.register(self.close)

    @classmethod
    def get(cls, device: str) -> ForkServer:
        server = cls._instances.get(device)
        if server is None or server.process.poll() is not None:
            if server is not None:
                server.close()
            server = cls._instances[device] = ForkServer(device)
        return server

    def inside(self, path: Path) -> str:
        """`path` (under the jobs directory) as the sandbox sees it."""
        if self.method != "bubblewrap":
            return str(path)
        return str(Path(sandbox.INSIDE_JOBS) / path.relative_to(self.jobs))

    def new_job(self) -> Path:
        work = self.jobs / f"job-{os.urandom(6).hex()}"
        work.mkdir(mode=0o700)
        return work

    def start(self, work: Path, device: str, memory: int | None) -> int:
        if self.method == "fallback" and os.geteuid() == 0:
            os.chown(work, sandbox.NOBODY, sandbox.NOBODY)
        request = {
            "candidate": self.inside(work / "candidate.py"),
            "workdir": self.inside(work),
            "device": device,
            "memory": memory,
            "sandbox": self.method,
        }
        reply = self._send(json.dumps(request))
        return reply["pid"]

    def _send(self, line: str) -> dict:
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise SandboxGone("the sandbox stopped answering") from exc
        reply = self.process.stdout.readline()
        if not reply:
            raise SandboxGone("the sandbox ended")
        return json.loads(reply)

    def kill_job(self) -> None:
        try:
            self.process.stdin.write("kill\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def exit_code(self, timeout: float = 0.0) -> int | None:
        """The job's exit code once it has ended, else None."""
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            return None
        reply = self.process.stdout.readline()
        if not reply:
            raise SandboxGone("the sandbox ended")
        return json.loads(reply)["exit"]

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
                self.process.wait(5)
            except (subprocess.TimeoutExpired, OSError):
                self.process.kill()
        shutil.rmtree(self.jobs, ignore_errors=True)


class SandboxGone(Exception):
    """The fork server died: the candidate's run ends as a crash."""


def _tail(path: Path, lines: int = 8) -> str:
    try:
        data = path.read_bytes()[-4000:]
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace").strip().splitlines()
    return review.escape("\n".join(text[-lines:]))


@dataclass
class Limits:
    case_timeout_s: float
    deadline_s: float
    memory_bytes: int | None


def run_cases(
    source: bytes,
    device: str,
    selected: list[Case],
    *,
    collect_all: bool,
    limits: Limits,
    report,
    max_numel: int,
) -> tuple[list[CaseResult], float | None]:
    """Run the candidate on every case in the sandbox and judge each case here
    as its files arrive; `report(case_result)` sees each one. Without
    `collect_all`, the child is stopped at the first failing case. Returns
    the results and the child's CPU seconds (None if it was cut short)."""
    interpreter = device == "cpu"
    try:
        built = [case.calls(device, max_numel) for case in selected]
    except (MemoryError, RuntimeError) as exc:
        raise HarnessError(f"the evaluator could not build its inputs: {exc}") from exc
    server = ForkServer.get(device)
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
    stopped = False
    try:
        _write_inputs(work, source, selected, built)
        server.start(work, device, limits.memory_bytes)
        stage_since = time.monotonic()
        while True:
            if exit_code is None:
                exit_code = server.exit_code(timeout=0.01)
            words = records.read_progress(work / "progress")
            ended = [int(w.split()[1]) for w in words if w.startswith("end ")]
            if ended != list(range(len(ended))) or len(ended) > len(selected):
                raise RecordError("progress", "cases ended out of order")
            if len(ended) > len(results):  # judge every case that has ended
                index = len(results)
                claim = records.read_claim(work / f"case-{index}.json", "case")
                tensors = records.read_tensors(work / f"case-{index}.qt")
                item = judge_case(
                    index, selected[index], built[index], claim, tensors, interpreter
                )
                judged.append(item)
                finish(item.result)
                stage_since = time.monotonic()
                if item.result.result == "fail" and not collect_all:
                    stopped = True
                    break
                continue
            if exit_code is not None:
                status = _status(work)
                if len(results) == len(selected) and status.get("stage") == "done":
                    final = records.read_tensors(work / "final.qt")
                    judge_end_of_run(judged, final)
                    cpu_s = status["cpu_s"]
                    break
                in_case = any(w.startswith("start ") for w in words)
                fail_current("completes", _early_end(status, exit_code, work, in_case))
                break
            now = time.monotonic()
            if now - started > limits.deadline_s:
                fail_current(
                    "completes",
                    f"the overall deadline of {limits.deadline_s:g} s passed",
                )
                stopped = True
                break
            if now - stage_since > limits.case_timeout_s:
                in_case = any(w.startswith("start ") for w in words)
                what = "this case" if in_case else "importing the candidate"
                fail_current(
                    "completes",
                    f"no result after {limits.case_timeout_s:g} s ({what}): a hang",
                )
                stopped = True
                break
    except RecordError as exc:
        fail_current("records-well-formed", f"{exc.file} {exc.problem}")
        stopped = True
    except SandboxGone as exc:
        fail_current("completes", f"{exc} during the run (the candidate killed it?)")
        stopped = True
    finally:
        if stopped or exit_code is None:
            server.kill_job()
            try:
                server.exit_code(timeout=10)
            except SandboxGone:
                pass
        shutil.rmtree(work, ignore_errors=True)
    for case in selected[len(results) :]:
        finish(CaseResult(case, "not run"))
    return results, cpu_s


def _write_inputs(work: Path, source: bytes, selected, built) -> None:
    plan = {
        "cases": [
            {
                "name": case.name,
                "calls": [
                    {"mode": c.mode, "reuse": c.reuse, "out_nbytes": _out_nbytes(c)}
                    for c in calls
                ],
            }
            for case, calls in zip(selected, built, strict=True)
        ]
    }
    (work / "candidate.py").write_bytes(source)
    (work / "plan.json").write_text(json.dumps(plan))
    inputs = {
        case.name: [c.child_spec() for c in calls]
        for case, calls in zip(selected, built, strict=True)
    }
    torch.save(inputs, work / "inputs.pt")
    for path in work.iterdir():
        path.chmod(0o644)


def _out_nbytes(call: Call) -> int:
    if call.x is None or call.x.get("kind") != "strided":
        return 0
    itemsize = call.x["base"].element_size()
    return math.prod(call.x["size"]) * itemsize


def _status(work: Path) -> dict:
    try:
        return records.read_claim(work / "status.json", "status")
    except FileNotFoundError:
        return {}


def _early_end(status: dict, exit_code: int, work: Path, in_case: bool) -> str:
    if status.get("stage") == "import":
        return (
            f"importing the candidate raised {_clip(status['type'], 60)}: "
            f"{_clip(status['message'])}"
        )
    if status.get("stage") == "function":
        return f"after the import, {FUNCTION} is not a function"
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
    if stderr := _tail(work / "stderr.txt"):
        detail += f"; its last output: {_clip(stderr, 300)}"
    return detail


# --------------------------------------------------------------------------
# The verdict
# --------------------------------------------------------------------------


def read_source(path: Path) -> tuple[bytes, str]:
    """The candidate's bytes and text; HarnessError unless it is UTF-8."""
    data = path.read_bytes()
    try:
        return data, data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HarnessError(
            f"{display_path(path)} is not UTF-8 (byte {exc.start}); Python "
            "source must be"
        ) from None


def static_check(path: Path, text: str) -> None:
    """Harness errors found without running the candidate."""
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise HarnessError(
            f"{display_path(path)}: syntax error on line {exc.lineno}: "
            f"{review.escape(str(exc.msg))}"
        ) from exc
    except ValueError as exc:  # null bytes
        raise HarnessError(f"{display_path(path)}: {exc}") from exc
    for node in _module_level(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name == FUNCTION:
                return
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = any(isinstance(t, ast.Name) and t.id == FUNCTION for t in targets)
            if named and not isinstance(node.value, ast.Constant):
                return
        elif isinstance(node, ast.ImportFrom | ast.Import):
            if any((a.asname or a.name.split(".")[-1]) == FUNCTION for a in node.names):
                return
    raise HarnessError(
        f"{display_path(path)} defines no function {FUNCTION}(x, residual)"
    )


def _module_level(tree: ast.Module):
    """Statements run at import: the body, and inside if/try/with/for at
    module level (not inside functions or classes)."""
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        yield node
        if isinstance(node, ast.If | ast.Try | ast.With | ast.For | ast.While):
            for name in ("body", "orelse", "finalbody"):
                todo += getattr(node, name, [])
            for handler in getattr(node, "handlers", []):
                todo += handler.body


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
    elif memory_bytes is None:
        memory = None
    elif type(memory_bytes) is int and memory_bytes >= 1 << 30:
        memory = memory_bytes
    else:
        raise HarnessError(f"--memory must be at least 1 GiB, got {memory_bytes!r}")
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
) -> dict:
    """Qualify one candidate file; returns the verdict as a dict (the same
    one --json writes). Prints to `out` (None: silent). On the CPU, cases
    with more than `max_numel` elements per input get their launch checked
    and not their values."""
    path = Path(path)
    say = (lambda *a: print(*a, file=out, flush=True)) if out else (lambda *a: None)
    started = time.monotonic()
    sandbox.not_dumpable()
    verdict = {
        "schema_version": SCHEMA_VERSION,
        "record": "verdict",
        "candidate": display_path(path),
        "sha256": None,
        "device": device,
        "backend": "triton-interpreter" if device == "cpu" else "gpu",
        "interpreter_max_numel": max_numel if device == "cpu" else None,
        "software": software(),
        "mode": "all" if collect_all else "first-failure",
        "isolation": None,
        "limits": None,
        "status": None,
        "exit_code": None,
        "first_failure": None,
        "harness_error": None,
        "divergence": None,
        "review": [],
        "cases": [],
        "failed_checks": [],
        "counts": None,
        "printed": None,
        "contract": contract(),
    }
    try:
        if device not in ("cpu", "cuda"):
            raise HarnessError(f"--device must be cpu or cuda, got {device!r}")
        if not path.is_file():
            raise HarnessError(f"no such file: {display_path(path)}")
        limits = check_limits(device, timeout_s, deadline_s, memory_bytes)
        verdict["limits"] = {
            "case_timeout_s": limits.case_timeout_s,
            "deadline_s": limits.deadline_s,
            "memory_bytes": limits.memory_bytes,
        }
        if device == "cuda" and not torch.cuda.is_available():
            raise HarnessError("--device cuda: no CUDA device is available")
        data = path.read_bytes()
        verdict["sha256"] = sha256_bytes(data)
        say(f"candidate: {review.escape(display_path(path))}")
        say(f"sha256:    {verdict['sha256']}")
        if show_source:
            lines = data.decode("utf-8", errors="backslashreplace").splitlines()
            say(f"source ({len(lines)} lines), shown before it runs:")
            for number, line in enumerate(lines, start=1):
                say(f"  {number:4d} | {review.escape(line)}")
        source, text = read_source(path)
        static_check(path, text)
        verdict["review"] = review.suspicious(text)
        verdict["isolation"] = sandbox.isolation(device)
        selected = cases()
        n_kernel = sum(c.kind == "kernel" for c in selected)
        say(
            f"device:    {device} ("
            + (
                "Triton interpreter: values for these inputs, not speed"
                if device == "cpu"
                else "GPU"
            )
            + ")"
        )
        say(f"isolation: {verdict['isolation']['method']}")
        say(
            f"running {n_kernel} kernel cases and {len(selected) - n_kernel} "
            f"unsupported-input cases in the sandbox, at most "
            f"{limits.case_timeout_s:g} s per case and {limits.deadline_s:g} s "
            "in all"
        )
        say("")

        def report(case_result: CaseResult) -> None:
            entry = case_result.to_dict()
            entry["mode"] = case_result.case.mode_on(device, max_numel)
            say(case_line(entry))

        results, child_cpu_s = run_cases(
            source,
            device,
            selected,
            collect_all=collect_all,
            limits=limits,
            report=report,
            max_numel=max_numel,
        )
    except HarnessError as exc:
        verdict.update(
            status="harness-error", exit_code=EXIT_HARNESS, harness_error=str(exc)
        )
        say(f"harness error: {exc}")
        verdict["elapsed_s"] = round(time.monotonic() - started, 2)
        verdict["child_cpu_s"] = None
        verdict["printed"] = {"verdict": verdict_line(verdict)}
        return verdict
    verdict["cases"] = [r.to_dict() for r in results]
    for entry, r in zip(verdict["cases"], results, strict=True):
        entry["mode"] = r.case.mode_on(device, max_numel)
        entry["printed"] = case_line(entry)
    failures = [f for r in results for f in r.failures]
    verdict["failed_checks"] = sorted(
        {f.check for f in failures}, key=CHECK_ORDER.index
    )
    divergence = explained_by_divergence(device, text, results)
    if failures and divergence:
        verdict.update(
            status="inconclusive",
            exit_code=EXIT_INCONCLUSIVE,
            first_failure=failures[0].to_dict(),
            divergence=divergence,
        )
    elif failures:
        verdict.update(
            status="rejected",
            exit_code=EXIT_REJECTED,
            first_failure=failures[0].to_dict(),
        )
    else:
        verdict.update(status="qualified", exit_code=EXIT_QUALIFIED)
    verdict["counts"] = {
        "kernel_cases": sum(r.case.kind == "kernel" for r in results),
        "unsupported_cases": sum(r.case.kind == "unsupported" for r in results),
        "passed": sum(r.result == "pass" for r in results),
        "failed": sum(r.result == "fail" for r in results),
        "not_run": sum(r.result == "not run" for r in results),
        "calls": sum(r.calls for r in results if r.result != "not run"),
        "checks": sum(r.checks for r in results),
    }
    verdict["elapsed_s"] = round(time.monotonic() - started, 2)
    verdict["child_cpu_s"] = child_cpu_s and round(child_cpu_s, 2)
    verdict["printed"] = {"verdict": verdict_line(verdict)}
    say("")
    for line in review_lines(verdict):
        say(line)
    say(verdict["printed"]["verdict"])
    return verdict


def explained_by_divergence(device: str, text: str, results) -> str | None:
    """The name of a known interpreter divergence that explains every
    failure of a CPU run, or None."""
    if device != "cpu":
        return None
    failures = [(r.case, f) for r in results for f in r.failures]
    if not failures:
        return None
    for name, known in DIVERGENCES.items():
        if not known["source"].search(text):
            continue
        if all(
            f.check in known["checks"]
            and any(d in case.inputs for d in known["dtypes"])
            for case, f in failures
        ):
            return name
    return None


def review_lines(verdict: dict) -> list[str]:
    if not verdict["review"]:
        return []
    lines = ["review before trusting (constructs a black-box test cannot judge):"]
    for item in verdict["review"]:
        lines.append(f"  line {item['line']}: {item['construct']}: {item['why']}")
    return lines


def case_line(entry: dict) -> str:
    """One case as the evaluator prints it, from its verdict entry."""
    mark = {"pass": "pass", "fail": "FAIL", "not run": "not run"}[entry["result"]]
    text = f"  {mark:7} {entry['name']:<22} {entry['mode']:<12}"
    if entry["result"] == "pass":
        text += f" {entry['calls']} call(s), {entry['checks']} checks"
    for failure in entry["failures"]:
        where = f" call {failure['call']}" if failure["call"] else ""
        text += f"\n          {failure['check']}{where}: {failure['detail']}"
    return text.rstrip()


def verdict_line(verdict: dict) -> str:
    if verdict["status"] == "qualified":
        c = verdict["counts"]
        return (
            f"verdict: QUALIFIED: {c['kernel_cases']} kernel cases and "
            f"{c['unsupported_cases']} unsupported-input cases, "
            f"{c['checks']} checks, all passed"
        )
    if verdict["status"] == "harness-error":
        return f"verdict: HARNESS ERROR: {verdict['harness_error']}"
    first = verdict["first_failure"]
    where = f", call {first['call']}" if first["call"] else ""
    if verdict["status"] == "inconclusive":
        known = verdict["contract"]["divergences"][verdict["divergence"]]
        return (
            f"verdict: INCONCLUSIVE HERE: check {first['check']} failed on case "
            f"{first['case']}{where}, and a known interpreter divergence "
            f"explains every failure: {verdict['divergence']} (Triton "
            f"{known['triton']}: {known['detail']}); run on a GPU to decide"
        )
    return (
        f"verdict: REJECTED: check {first['check']} failed on case "
        f"{first['case']}{where}: {first['detail']}"
    )


def write_verdict(verdict: dict, out: str | Path) -> Path:
    """Write a verdict (validated against the "verdict" schema) to `out`."""
    return write_result("verdict", Path(out), verdict)
