"""Qualify a candidate ``residual_add_relu(x, residual)`` against its contract.

Usage (from the repository root)::

    python -m scripts.qualify PATH [--device cpu|cuda] [--json OUT] [--all]
                              [--timeout SECONDS]

PATH is any Python file that defines ``residual_add_relu(x, residual)`` with
the contract of ``kernels/residual_add_relu.py`` (see the Kernel Correctness
Contracts page). The evaluator

1. shows the candidate's source and its sha256 before running any of it;
2. builds every input itself, and runs the candidate in a separate process
   (``scripts/qualify/worker.py``; the Triton interpreter on ``--device cpu``)
   with a timeout per case;
3. compares what comes back here, in this process, so a candidate cannot
   patch the comparison; a crash, a hang or an unexpected exception is a
   rejection with the reason;
4. prints every case and a verdict, and returns the verdict as data (kind
   "verdict" of ``scripts.results``), the contract it checked included, so
   the pages need nothing but the file.

Exit codes: 0 qualified; 1 rejected (the first failing check and case are
named; ``--all`` runs every case and lists every failure); 2 harness error
(no such file, a syntax error, no function ``residual_add_relu``).

Evidence kind: on ``cpu`` the interpreter shows the candidate computes the
right values for these inputs; it cannot show races, and shapes too large to
interpret get their launch checked, not their values (the case list says
which). Nothing here measures speed.
"""

from __future__ import annotations

import ast
import atexit
import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch

from kernels.launches import GRID_LIMITS
from kernels.residual_add_relu import DESCRIPTOR
from scripts.qualify import worker
from scripts.qualify.cases import (
    BOTH,
    INTERPRETER_MAX_NUMEL,
    Call,
    Case,
    bench_dtype,
    bench_shapes,
    cases,
)
from scripts.results import ROOT, display_path, sha256_bytes
from scripts.results import write as write_result
from scripts.results.provenance import software_info
from snippets.kernel_correctness_contracts.contract import (
    allowed_ulps,
    bits_changed,
    names_argument,
    nan_mismatch,
    value_mismatch,
)

EXIT_QUALIFIED, EXIT_REJECTED, EXIT_HARNESS = 0, 1, 2
EXIT_CODES = {
    "qualified": EXIT_QUALIFIED,
    "rejected": EXIT_REJECTED,
    "harness-error": EXIT_HARNESS,
}
SCHEMA_VERSION = 2
FUNCTION = worker.CANDIDATE_FUNCTION
DEFAULT_TIMEOUT_S = {"cpu": 30.0, "cuda": 180.0}  # per case, per import

# --------------------------------------------------------------------------
# Checks, in the order a case applies them (the first failure is reported)
# --------------------------------------------------------------------------

CHECKS = {
    "completes": "the call returns: no exception, crash or hang on a supported input",
    "grid-limits": "every launch's grid is one a GPU accepts (x up to "
    "2**31 - 1 programs, y and z up to 65535)",
    "launches-kernel": "every call on a non-empty input launches a Triton "
    "kernel defined in the candidate's file",
    "output-type": "the result is a plain torch.Tensor of the inputs' shape, "
    "dtype and device",
    "output-fresh": "the result shares no memory with an input or with an "
    "earlier result",
    "inputs-unchanged": "both inputs' storages are bit-for-bit what they were "
    "before the call",
    "values": "every element whose reference is a number matches it within "
    "the dtype's tolerance",
    "nan-mask": "every element whose reference is NaN is NaN",
    "deterministic": "a second call on the same inputs gives the same bits",
    "error-type": "an unsupported input raises the contract's exception type",
    "error-message": "the exception's message names the offending argument",
    "validates-first": "no kernel is launched before the error is raised",
}
CHECK_ORDER = list(CHECKS)


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
    call: int  # 1-based
    detail: str

    def to_dict(self) -> dict:
        return {
            "check": self.check,
            "case": self.case,
            "call": self.call,
            "detail": self.detail,
        }


def _launch_text(launches: list[dict]) -> str:
    names = sorted({f"{r['kernel']} ({Path(r['file']).name})" for r in launches})
    return ", ".join(names) if names else "none"


def judge_kernel_call(call, record, pristine, previous, interpreter) -> tuple:
    """(failures as (check, detail), checks evaluated) for a supported input."""
    failures: list[tuple[str, str]] = []
    evaluated = 0
    launches = record["launches"]
    violations = [r["violation"] for r in launches if r.get("violation")]

    def check(name, problem):
        nonlocal evaluated
        evaluated += 1
        if problem:
            failures.append((name, problem))
        return not problem

    raised = record["raised"]
    if raised and violations:
        check("grid-limits", f"{violations[0]}; the launch fails on a GPU")
        return failures, evaluated
    if not check(
        "completes", raised and f"raised {raised['type']}: {_clip(raised['message'])}"
    ):
        return failures, evaluated
    check("grid-limits", violations and violations[0])
    shape, dtype = expected_meta(call, pristine)
    numel = math.prod(shape)
    if numel:
        own = [r for r in launches if r["own"]]
        elsewhere = f"launched only kernels defined elsewhere: {_launch_text(launches)}"
        check(
            "launches-kernel",
            not own and ("launched no Triton kernel" if not launches else elsewhere),
        )
    out = record["output"]
    meta_problem = None
    if not out["plain"]:
        meta_problem = f"returned a {out['type']}, not a torch.Tensor"
    elif out["shape"] != shape or out["dtype"] != dtype:
        meta_problem = (
            f"returned shape {tuple(out['shape'])} {out['dtype']}; expected "
            f"{tuple(shape)} {dtype}"
        )
    elif out["device"] != record["input_device"]:
        meta_problem = (
            f"returned a tensor on {out['device']}, inputs on "
            + (record["input_device"])
        )
    if not check("output-type", meta_problem):
        return failures, evaluated
    check(
        "output-fresh",
        out["aliases"]
        and "the result shares memory with " + " and ".join(out["aliases"]),
    )
    if call.mode != "values":
        return failures, evaluated
    changed = []
    for name, before, after in zip(
        BOTH, pristine.bases, record["bases_after"], strict=True
    ):
        if (count := bits_changed(before, after)) > 0:
            changed.append(f"{name}: {count} elements of its storage")
    check("inputs-unchanged", changed and "the call wrote to " + "; ".join(changed))
    actual = record["values"]
    expected = reference(*pristine.views)
    ulps = allowed_ulps(expected.dtype, interpreter)
    check("values", value_mismatch(actual, expected, ulps))
    check("nan-mask", nan_mismatch(actual, expected))
    if call.reuse == "same" and previous is not None and "values" in previous:
        differ = bits_changed(previous["values"], actual)
        check(
            "deterministic",
            differ
            and f"{differ} of {actual.numel()} elements "
            "differ bit for bit from the previous call on the same inputs",
        )
    return failures, evaluated


def judge_error_call(call, record) -> tuple:
    failures = []
    raised = record["raised"]
    if raised is None:
        out = record.get("output", {})
        what = out.get("type", "value")
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
                f"{call.note}: raised {raised['type']}: "
                f"{_clip(raised['message'])}; the contract says "
                f"{call.expect_error}",
            )
        ], 1
    if not names_argument(raised["message"], call.expect_names):
        failures.append(
            (
                "error-message",
                f"{call.note}: {raised['type']}("
                f"{_clip(raised['message'])!r}) does not name "
                + " or ".join(call.expect_names),
            )
        )
    if record["launches"]:
        failures.append(
            (
                "validates-first",
                f"{call.note}: launched "
                f"{_launch_text(record['launches'])} before raising "
                f"{raised['type']}",
            )
        )
    return failures, 3


def _clip(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------
# Running the child process
# --------------------------------------------------------------------------


class ForkServer:
    """One long-lived `python -m scripts.qualify.worker` process per device: it
    imports torch and Triton once and forks a fresh child per candidate, so
    a candidate costs a fraction of a second to start instead of the seconds
    an `import torch` takes. Triton decides at import time whether its own
    library functions (tl.randint, ...) are interpreted, so the server is
    started with TRITON_INTERPRET already set for its device."""

    _instances: dict[str, ForkServer] = {}

    def __init__(self, device: str):
        env = dict(os.environ, TRITON_INTERPRET="1" if device == "cpu" else "0")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "scripts.qualify.worker", "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
        )
        atexit.register(self.close)

    @classmethod
    def get(cls, device: str) -> ForkServer:
        server = cls._instances.get(device)
        if server is None or server.process.poll() is not None:
            server = cls._instances[device] = ForkServer(device)
        return server

    def start(self, candidate: Path, work: Path, device: str) -> int:
        request = {
            "candidate": str(candidate.resolve()),
            "workdir": str(work),
            "device": device,
        }
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline()
        if not reply:
            raise HarnessError("the evaluator's fork server died")
        return json.loads(reply)["pid"]

    def exit_code(self, timeout: float = 0.0) -> int | None:
        """The child's exit code once it has ended, else None."""
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            return None
        reply = self.process.stdout.readline()
        if not reply:
            raise HarnessError("the evaluator's fork server died")
        return json.loads(reply)["exit"]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()


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


class HarnessError(Exception):
    """The evaluator could not evaluate: no file, no function, bad syntax."""


def _read_progress(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except FileNotFoundError:
        return []


def _tail(path: Path, lines: int = 8) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except FileNotFoundError:
        return ""
    return "\n".join(text[-lines:])


def run_cases(
    candidate: Path,
    device: str,
    selected: list[Case],
    *,
    collect_all: bool,
    timeout_s: float,
    report,
    max_numel: int,
) -> tuple[list[CaseResult], float | None]:
    """Run the candidate on every case in a child process and judge each
    case here as its result arrives; `report(case_result)` sees each one.
    Without `collect_all`, the child is stopped at the first failing case.
    Returns the results and the child's CPU seconds (None if it was cut
    short)."""
    interpreter = device == "cpu"
    built = [case.calls(device, max_numel) for case in selected]
    work = Path(tempfile.mkdtemp(prefix="qualify-", dir=_temp_root()))
    results: list[CaseResult] = []

    def finish(case_result: CaseResult) -> None:
        results.append(case_result)
        report(case_result)

    def died(detail: str) -> None:
        case = selected[len(results)]
        finish(CaseResult(case, "fail", [Failure("completes", case.name, 0, detail)]))

    pid = exit_code = None
    server = ForkServer.get(device)
    try:
        _write_inputs(work, selected, built)
        pid = server.start(candidate, work, device)
        stage_since = time.monotonic()
        stopped = False
        while len(results) < len(selected):
            if exit_code is None:
                exit_code = server.exit_code(timeout=0.01)
            words = _read_progress(work / "progress.txt")
            ended = [int(words[i + 1]) for i, w in enumerate(words) if w == "end"]
            if len(ended) > len(results):  # judge every case that has ended
                index = len(results)
                record = torch.load(work / f"result-{index}.pt", weights_only=True)
                finish(judge_case(selected[index], built[index], record, interpreter))
                stage_since = time.monotonic()
                if results[-1].result == "fail" and not collect_all:
                    stopped = True
                    break
                continue
            if exit_code is not None:  # ended without finishing every case
                status = _status(work)
                if status.get("stage") == "function":
                    raise HarnessError(f"{candidate} defines no function {FUNCTION}")
                died(_early_end(status, exit_code, work, "start" in words))
                break
            if time.monotonic() - stage_since > timeout_s:
                what = "this case" if "start" in words else "importing the candidate"
                died(f"no result after {timeout_s:g} s ({what}): a hang")
                stopped = True
                break
        if exit_code is None and not stopped:  # every case ran: let it finish
            exit_code = server.exit_code(timeout=5)
        for case in selected[len(results) :]:
            finish(CaseResult(case, "not run"))
        return results, _status(work).get("cpu_s")
    finally:
        if pid is not None and exit_code is None:  # never leave it running
            _kill(pid)
            try:
                server.exit_code(timeout=10)
            except HarnessError:
                pass
        shutil.rmtree(work, ignore_errors=True)


def _write_inputs(work: Path, selected: list[Case], built: list[list[Call]]) -> None:
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
    (work / "plan.json").write_text(json.dumps(plan))
    inputs = {
        case.name: [c.child_spec() for c in calls]
        for case, calls in zip(selected, built, strict=True)
    }
    torch.save(inputs, work / "inputs.pt")


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _temp_root() -> str | None:
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() else None


def _out_nbytes(call: Call) -> int:
    if call.x is None or call.x.get("kind") != "strided":
        return 0
    itemsize = call.x["base"].element_size()
    return math.prod(call.x["size"]) * itemsize


def _status(work: Path) -> dict:
    try:
        return json.loads((work / "status.json").read_text())
    except (FileNotFoundError, ValueError):
        return {}


def _early_end(status: dict, exit_code: int, work: Path, in_case: bool) -> str:
    if status.get("stage") == "import":
        return (
            f"importing the candidate raised {status['type']}: "
            f"{_clip(status['message'])}"
        )
    where = "during this case" if in_case else "while importing the candidate"
    if exit_code < 0:
        how = f"was killed by signal {-exit_code} ({signal.Signals(-exit_code).name})"
    else:
        how = f"exited with code {exit_code}"
    detail = f"the candidate's process {how} {where}"
    if stderr := _tail(work / "stderr.txt"):
        detail += f"; its last output: {_clip(stderr, 300)}"
    return detail


def judge_case(case, calls, record, interpreter) -> CaseResult:
    pristine = pristine_for(calls)
    result = CaseResult(case, "pass", calls=len(calls), seconds=record["seconds"])
    previous = None
    for number, (call, rec, pure) in enumerate(
        zip(calls, record["calls"], pristine, strict=True), start=1
    ):
        if call.mode == "error":
            found, evaluated = judge_error_call(call, rec)
        else:
            found, evaluated = judge_kernel_call(call, rec, pure, previous, interpreter)
        result.checks += evaluated
        result.failures += [Failure(c, case.name, number, d) for c, d in found]
        previous = rec
    result.failures.sort(key=lambda f: (f.call, CHECK_ORDER.index(f.check)))
    if result.failures:
        result.result = "fail"
    return result


# --------------------------------------------------------------------------
# The verdict
# --------------------------------------------------------------------------


def source_identity(path: Path) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8")
    return text, sha256_bytes(path.read_bytes())


def static_check(path: Path, text: str) -> None:
    """Harness errors found without running the candidate."""
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise HarnessError(
            f"{path}: syntax error on line {exc.lineno}: {exc.msg}"
        ) from exc
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name == FUNCTION:
                return
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == FUNCTION for t in targets):
                return
        elif isinstance(node, ast.ImportFrom | ast.Import):
            if any((a.asname or a.name.split(".")[-1]) == FUNCTION for a in node.names):
                return
    raise HarnessError(f"{path} defines no function {FUNCTION}(x, residual)")


def software() -> dict:
    """The versions a verdict records (from the one provenance helper)."""
    info = software_info()
    return {key: info[key] for key in ("python", "torch", "triton")}


def qualify(
    path,
    device: str = "cpu",
    *,
    collect_all: bool = False,
    timeout_s: float | None = None,
    out=None,
    show_source: bool = True,
    max_numel: int = INTERPRETER_MAX_NUMEL,
) -> dict:
    """Qualify one candidate file; returns the verdict as a dict (the same
    one --json writes). Prints to `out` (None: silent). On the CPU, cases
    with more than `max_numel` elements per input get their launch checked
    and not their values."""
    path = Path(path)
    timeout_s = timeout_s or DEFAULT_TIMEOUT_S["cpu" if device == "cpu" else "cuda"]
    say = (lambda *a: print(*a, file=out, flush=True)) if out else (lambda *a: None)
    started = time.monotonic()
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
        "status": None,
        "exit_code": None,
        "first_failure": None,
        "harness_error": None,
        "cases": [],
        "failed_checks": [],
        "counts": None,
        "printed": None,
        "contract": contract(),
    }
    try:
        if not path.is_file():
            raise HarnessError(f"no such file: {path}")
        if device not in ("cpu", "cuda"):
            raise HarnessError(f"--device must be cpu or cuda, got {device!r}")
        if device == "cuda" and not torch.cuda.is_available():
            raise HarnessError("--device cuda: no CUDA device is available")
        text, digest = source_identity(path)
        verdict["sha256"] = digest
        say(f"candidate: {display_path(path)}")
        say(f"sha256:    {digest}")
        if show_source:
            lines = text.splitlines()
            say(f"source ({len(lines)} lines), shown before it runs:")
            for number, line in enumerate(lines, start=1):
                say(f"  {number:4d} | {line}")
        static_check(path, text)
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
        say(
            f"running {n_kernel} kernel cases and {len(selected) - n_kernel} "
            f"unsupported-input cases in a separate process, at most "
            f"{timeout_s:g} s per case"
        )
        say("")

        def report(case_result: CaseResult) -> None:
            entry = case_result.to_dict()
            entry["mode"] = case_result.case.mode_on(device, max_numel)
            say(case_line(entry))

        results, child_cpu_s = run_cases(
            path,
            device,
            selected,
            collect_all=collect_all,
            timeout_s=timeout_s,
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
    if failures:
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
    say(verdict["printed"]["verdict"])
    return verdict


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
    return (
        f"verdict: REJECTED: check {first['check']} failed on case "
        f"{first['case']}{where}: {first['detail']}"
    )


def write_verdict(verdict: dict, out: str | Path) -> Path:
    """Write a verdict (validated against the "verdict" schema) to `out`."""
    return write_result("verdict", Path(out), verdict)
