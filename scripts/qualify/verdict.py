"""The verdict: what one qualification found, as a record and as the lines
the evaluator prints (used by ``scripts/qualify/evaluator.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from scripts.qualify import gate
from scripts.qualify.checks import CHECK_ORDER
from scripts.qualify.contract import (
    CANNOT_ESTABLISH,
    DIVERGENCES,
    EXIT_INCONCLUSIVE,
    EXIT_QUALIFIED,
    EXIT_REJECTED,
    SCHEMA_VERSION,
    contract,
)
from scripts.qualify.judge import CaseResult, Failure


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
    seed: int | None = None
    # The commit the candidate and the evaluator were at (``git_identity``:
    # git, or GPU_PERF_COMMIT on a tree copied without its .git).
    git: dict | None = None
    gate: dict | None = None
    cannot_establish: list = field(default_factory=lambda: list(CANNOT_ESTABLISH))

    def __post_init__(self):
        self.backend = "triton-interpreter" if self.device == "cpu" else "gpu"

    def to_dict(self) -> dict:
        keys = (
            "schema_version record candidate sha256 device backend "
            "interpreter_max_numel software mode isolation limits status "
            "exit_code first_failure harness_error divergence review cases "
            "failed_checks counts printed contract elapsed_s child_cpu_s seed "
            "git gate cannot_establish"
        ).split()
        return {key: getattr(self, key) for key in keys}

    def refuse(self, item: dict) -> None:
        """Refused by the static gate: nothing ran."""
        self.status, self.exit_code = "rejected", EXIT_REJECTED
        detail = gate.refusal_message(item)
        self.first_failure = Failure("source-gate", "source", 0, detail).to_dict()
        self.failed_checks = ["source-gate"]
        self.counts = dict.fromkeys(
            "kernel_cases unsupported_cases passed failed not_run calls".split(), 0
        )
        self.counts["checks"] = 1
        self.printed = {"verdict": verdict_line(self.to_dict())}

    def conclude(self, results: list[CaseResult], text: str, max_numel: int):
        """Status, exit code, cases and counts from the judged cases, in the
        contract's case order (they ran shuffled)."""
        order = {c["name"]: i for i, c in enumerate(self.contract["cases"])}
        results = sorted(results, key=lambda r: order[r.case.name])
        self.cases = [r.to_dict() for r in results]
        for entry, r in zip(self.cases, results, strict=True):
            entry["mode"] = r.case.mode_on(self.device, max_numel)
            entry["printed"] = case_line(entry)
        failures = [f for r in results for f in r.failures]
        self.failed_checks = sorted({f.check for f in failures}, key=CHECK_ORDER.index)
        divergence = explained_by_divergence(self.device, text, results)
        if failures:
            # The earliest check of the contract's order that failed, on the
            # first case it failed in: the same whichever order the run took
            # (a result overwritten later fails an earlier case's check).
            first = min(failures, key=lambda f: CHECK_ORDER.index(f.check))
            self.first_failure = first.to_dict()
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
        if "applies" in known and not known["applies"]():
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
    if first["check"] == "source-gate":
        return (
            f"verdict: REFUSED (nothing ran): {first['detail']}; a reviewer "
            "who has read the whole source may run it with --reviewed "
            f"{verdict['sha256']}"
        )
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
