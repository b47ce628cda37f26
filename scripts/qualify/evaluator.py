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

import json
import math
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch

from evidence import display_path, sha256_bytes
from evidence import write as write_result
from evidence.provenance import software_info
from scripts.qualify import records, review, sandbox
from scripts.qualify.cases import INTERPRETER_MAX_NUMEL, Call, Case, cases
from scripts.qualify.contract import (  # noqa: F401  (the evaluator's names)
    BLACK_BOX_LIMITS,
    CHECK_ORDER,
    CHECKS,
    DEFAULT_DEADLINE_S,
    DEFAULT_MEMORY_BYTES,
    DEFAULT_TIMEOUT_S,
    DESCRIPTOR_FILE,
    DIVERGENCES,
    EXIT_CODES,
    EXIT_HARNESS,
    EXIT_INCONCLUSIVE,
    EXIT_QUALIFIED,
    EXIT_REJECTED,
    FUNCTION,
    MAX_TIMEOUT_S,
    SCHEMA_VERSION,
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
from scripts.qualify.sandbox import ForkServer, SandboxGone  # noqa: F401


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
                tensors = records.read_tensors(
                    work / f"case-{index}.safetensors", bundle_limit(built[index])
                )
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
                    final = records.read_tensors(
                        work / "final.safetensors",
                        sum(bundle_limit(c) for c in built),
                    )
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


def bundle_limit(calls: list[Call]) -> int:
    """The most bytes a bundle for these calls can hold: each values call's
    output and both input storages, and a header."""
    total = records.MAX_HEADER_BYTES + 8
    bases, out = (0, 0), 0
    for call in calls:
        if call.mode != "values":
            continue
        if call.x is not None:
            bases = tuple(
                s["base"].numel() * s["base"].element_size()
                for s in (call.x, call.residual)
            )
            out = _out_nbytes(call)
        total += out + sum(bases)
    return total


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
            f"importing the candidate raised {clip(status['type'], 60)}: "
            f"{clip(status['message'])}"
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
        detail += f"; its last output: {clip(stderr, 300)}"
    return detail


def _tail(path: Path, lines: int = 8) -> str:
    try:
        data = path.read_bytes()[-4000:]
    except OSError:
        return ""
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
    elif memory_bytes is None:
        memory = None
    elif type(memory_bytes) is int and memory_bytes >= 1 << 30:
        memory = memory_bytes
    else:
        raise HarnessError(f"--memory must be at least 1 GiB, got {memory_bytes!r}")
    return Limits(timeout, deadline, memory)


@dataclass
class Verdict:
    """What one qualification found; ``to_dict()`` is the record --json
    writes (kind "verdict" of ``evidence``)."""

    candidate: str
    device: str
    interpreter_max_numel: int | None
    mode: str
    schema_version: int = SCHEMA_VERSION
    record: str = "verdict"
    sha256: str | None = None
    backend: str = ""
    software: dict = field(default_factory=dict)
    isolation: dict | None = None
    limits: dict | None = None
    status: str | None = None
    exit_code: int | None = None
    first_failure: dict | None = None
    harness_error: str | None = None
    divergence: str | None = None
    review: list = field(default_factory=list)
    cases: list = field(default_factory=list)
    failed_checks: list = field(default_factory=list)
    counts: dict | None = None
    printed: dict | None = None
    contract: dict = field(default_factory=contract)
    elapsed_s: float | None = None
    child_cpu_s: float | None = None

    def __post_init__(self):
        self.backend = "triton-interpreter" if self.device == "cpu" else "gpu"

    def to_dict(self) -> dict:
        keys = (
            "schema_version record candidate sha256 device backend "
            "interpreter_max_numel software mode isolation limits status "
            "exit_code first_failure harness_error divergence review cases "
            "failed_checks counts printed contract elapsed_s child_cpu_s"
        ).split()
        return {key: getattr(self, key) for key in keys}

    def conclude(self, results: list[CaseResult], text: str, max_numel: int):
        """Status, exit code, cases and counts from the judged cases."""
        self.cases = [r.to_dict() for r in results]
        for entry, r in zip(self.cases, results, strict=True):
            entry["mode"] = r.case.mode_on(self.device, max_numel)
            entry["printed"] = case_line(entry)
        failures = [f for r in results for f in r.failures]
        self.failed_checks = sorted({f.check for f in failures}, key=CHECK_ORDER.index)
        divergence = explained_by_divergence(self.device, text, results)
        if failures:
            self.first_failure = failures[0].to_dict()
        if failures and divergence:
            self.status, self.exit_code = "inconclusive", EXIT_INCONCLUSIVE
            self.divergence = divergence
        elif failures:
            self.status, self.exit_code = "rejected", EXIT_REJECTED
        else:
            self.status, self.exit_code = "qualified", EXIT_QUALIFIED
        self.counts = {
            "kernel_cases": sum(r.case.kind == "kernel" for r in results),
            "unsupported_cases": sum(r.case.kind == "unsupported" for r in results),
            "passed": sum(r.result == "pass" for r in results),
            "failed": sum(r.result == "fail" for r in results),
            "not_run": sum(r.result == "not run" for r in results),
            "calls": sum(r.calls for r in results if r.result != "not run"),
            "checks": sum(r.checks for r in results),
        }


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
    verdict = Verdict(
        candidate=display_path(path),
        device=device,
        interpreter_max_numel=max_numel if device == "cpu" else None,
        software=software(),
        mode="all" if collect_all else "first-failure",
    )
    try:
        limits = (timeout_s, deadline_s, memory_bytes)
        results, child_cpu_s, text = _run(
            path, device, verdict, say, collect_all, max_numel, show_source, limits
        )
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
    say(verdict.printed["verdict"])
    return verdict.to_dict()


def _run(path, device, verdict, say, collect_all, max_numel, show_source, limits):
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
    if show_source:
        lines = data.decode("utf-8", errors="backslashreplace").splitlines()
        say(f"source ({len(lines)} lines), shown before it runs:")
        for number, line in enumerate(lines, start=1):
            say(f"  {number:4d} | {review.escape(line)}")
    source, text = read_source(path)
    static_check(path, text)
    verdict.review = review.suspicious(text)
    verdict.isolation = sandbox.isolation(device)
    selected = cases()
    n_kernel = sum(c.kind == "kernel" for c in selected)
    backend = (
        "Triton interpreter: values for these inputs, not speed"
        if device == "cpu"
        else "GPU"
    )
    say(f"device:    {device} ({backend})")
    say(f"isolation: {verdict.isolation['method']}")
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
    return results, child_cpu_s, text


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
