"""The words, tables and numbers the qualification pages show (Triton
qualification project, Kernel correctness contracts, Qualify a generated
kernel; the decision memo's are in ``scripts/site/memo.py``).

Everything here is built from committed data files read through
``evidence.read``: the verdicts and the corpus in
``results/qualify/`` (kind "verdict", written by ``python -m
scripts.qualify.refresh``). No torch, no Triton, no import of the evaluator:
the evaluator writes into every verdict the contract it checked (its checks,
cases, exit codes and limits), and the pages read it from there.
"""

from __future__ import annotations

import re
from pathlib import Path

import evidence
from evidence.tables import markdown_table
from evidence.text import inert

ROOT = evidence.ROOT
QUALIFY_DIR = evidence.RESULTS_DIR / "qualify"
KERNEL = "residual_add_relu"
#: The verdict whose contract the pages quote (the project's own kernel).
CONTRACT_FROM = "residual_add_relu"
INCLUDE_MARK = re.compile(r"-8<")


def _table(header: list[str], rows: list[list[object]]) -> str:
    """Rows of trusted Markdown (a file's strings are passed through inert()
    or _code() first)."""
    return markdown_table(header, rows, escape=False) + "\n"


# --------------------------------------------------------------------------
# Committed qualification files
# --------------------------------------------------------------------------


def _code(value: object) -> str:
    """A file's string as inline code, inert: a backtick in it cannot end a
    Markdown code span, because the span is HTML and the text references."""
    return f"<code>{inert(value)}</code>"


def result_path(name: str, device: str = "cpu") -> Path:
    return QUALIFY_DIR / f"{name}.{device}.json"


def committed(name: str, device: str = "cpu") -> dict:
    """One committed verdict (or the corpus), validated."""
    path = result_path(name, device)
    if not path.is_file():
        raise FileNotFoundError(
            f"{evidence.display_path(path)} is missing: run "
            f"python -m scripts.qualify.refresh "
            + ("corpus" if name == "corpus" else "verdicts")
        )
    return evidence.read("verdict", path).data


def contract() -> dict:
    """The contract the evaluator checked, as its committed verdict holds it."""
    return committed(CONTRACT_FROM)["contract"]


# --------------------------------------------------------------------------
# The contract: checks, cases, limits
# --------------------------------------------------------------------------


def _cases(kind: str) -> list[dict]:
    return [c for c in contract()["cases"] if c["kind"] == kind]


def kernel_case_count() -> int:
    return len(_cases("kernel"))


def unsupported_case_count() -> int:
    return len(_cases("unsupported"))


def fmt_exit_codes() -> str:
    codes = contract()["exit_codes"]
    names = {"inconclusive": "inconclusive here"}
    return ", ".join(
        f"{code} {names.get(status, status.replace('-', ' '))}"
        for status, code in sorted(codes.items(), key=lambda item: item[1])
    )


def fmt_isolation(name: str = CONTRACT_FROM) -> str:
    """How the committed verdict's candidate was isolated, as it states."""
    isolation = committed(name)["isolation"]
    details = "; ".join(inert(d) for d in isolation["details"])
    return f"{inert(isolation['method'])} ({details})"


def limits_facts() -> dict[str, str]:
    """The default per-case timeout, overall deadline and memory cap, and
    CUDA's grid limits, formatted."""
    d = contract()["defaults"]
    x, y, _ = contract()["grid_limits"]
    axes = list(range(len(contract()["grid_limits"])))  # CUDA's x, y, z
    return {
        "limits.case-cpu": f"{d['case_timeout_s']['cpu']:g} s",
        "limits.deadline-cpu": f"{d['deadline_s']['cpu']:g} s",
        "limits.memory-cpu": f"{d['memory_bytes']['cpu'] >> 30} GiB",
        "limits.case-cuda": f"{d['case_timeout_s']['cuda']:g} s",
        "limits.deadline-cuda": f"{d['deadline_s']['cuda']:g} s",
        "grid.axis-0": f"{x:,}",
        "grid.axes-1-2": f"{y:,}",
        "grid.first-axis": f"{axes[0]}",
        "grid.other-axes": " and ".join(map(str, axes[1:])),
    }


def black_box_limits_list() -> str:
    """What no black-box run can establish, as a Markdown list."""
    return "\n".join(f"- {inert(item)}" for item in contract()["black_box_limits"])


def gate_rules_list() -> str:
    """What the static gate refuses, as a Markdown list."""
    return "\n".join(f"- {inert(rule)}" for rule in contract()["gate_rules"])


def cannot_establish_list() -> str:
    """What a run cannot establish, as every verdict lists it."""
    return "\n".join(f"- {inert(item)}" for item in contract()["cannot_establish"])


def fmt_review_constructs() -> str:
    names = contract()["review_constructs"]
    shown = [_code(n) for n in names]
    return ", ".join(shown[:-1]) + f" and {shown[-1]}"


def fmt_divergence() -> str:
    """The known interpreter divergences an inconclusive verdict can name."""
    items = contract()["divergences"]
    return "; ".join(
        f"{_code(name)} (Triton {inert(d['triton'])}): {inert(d['detail'])}"
        for name, d in items.items()
    )


def check_count() -> int:
    return len(contract()["checks"])


def check_table() -> str:
    """The contract's checks (from the registry the verdict carries): what
    a pass establishes, what it cannot, and the candidate only it catches;
    every string from the file shown inert."""
    rows = [
        [
            _code(c["name"]),
            inert(c["passes_when"]),
            inert(c.get("cannot") or ""),
            _code(Path(c["only_catches"]).stem) if c.get("only_catches") else "",
        ]
        for c in contract()["checks"]
    ]
    header = ["check", "passes when", "cannot establish", "only it catches"]
    return _table(header, rows)


def case_table(kind: str = "kernel") -> str:
    """The case list as Markdown, numbered in the order the evaluator runs."""
    rows = [
        [
            inert(c["number"]),
            _code(c["name"]),
            inert(c["inputs"]),
            inert(c["catches"]),
            inert(c["mode"]["cpu"]),
            inert(c["mode"]["cuda"]),
        ]
        for c in _cases(kind)
    ]
    header = ["#", "case", "inputs", "exposes", "CPU (interpreter)", "GPU"]
    return _table(header, rows)


def fmt_launch_only_cases() -> str:
    names = [
        _code(c["name"]) for c in _cases("kernel") if c["mode"]["cpu"] == "launch only"
    ]
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]


def fmt_interpreter_max_numel() -> str:
    return f"{contract()['interpreter_max_numel']:,}"


def fmt_axis_limit() -> str:
    """The grid limit of CUDA's axes 1 and 2, the cap a kernel most often
    borrows for axis 0 too."""
    return f"{contract()['grid_limits'][1]:,}"


def fmt_bench_shapes() -> str:
    data = contract()
    text = ", ".join(f"{r}×{c}" for r, c in data["bench_shapes"])
    return f"{text} (from {inert(data['bench_shapes_source'])})"


# --------------------------------------------------------------------------
# One verdict
# --------------------------------------------------------------------------


def _fence(lines: list[str]) -> str:
    """A text block; the fence is longer than any backtick run inside (the
    lines quote a candidate's own messages)."""
    # A "--8<--" line inside a fence is still an include to pymdownx.snippets.
    body = INCLUDE_MARK.sub("-8 <", "\n".join(lines))
    fence = "```"
    while fence in body:
        fence += "`"
    return f"{fence}text\n{body}\n{fence}\n"


def printed_failure(name: str) -> str:
    """What the evaluator printed for a rejected candidate, as a fenced text
    block: the cases that passed (counted), the failing case in full, the
    verdict line."""
    verdict = committed(name)
    lines = []
    passed = [c for c in verdict["cases"] if c["result"] == "pass"]
    if passed:
        lines.append(
            f"  ({len(passed)} cases passed: {passed[0]['name']} … "
            f"{passed[-1]['name']})"
        )
    for entry in verdict["cases"]:
        if entry["result"] == "fail":
            lines.append(entry["printed"])
    not_run = sum(c["result"] == "not run" for c in verdict["cases"])
    if not_run:
        lines.append(
            f"  ({not_run} cases not run: the evaluator stops at the "
            "first failing case unless given --all)"
        )
    lines += ["", verdict["printed"]["verdict"]]
    return _fence(lines)


def verdict_summary(name: str) -> str:
    """One sentence: what was run, on what, and the outcome."""
    v = committed(name)
    soft = v["software"]
    where = "a GPU"
    if v["device"] == "cpu":
        where = (
            f"the Triton interpreter (Triton {inert(soft['triton'])}, "
            f"torch {inert(soft['torch'])})"
        )
    if v["status"] == "qualified":
        c = v["counts"]
        return (
            f"**qualified**: {c['kernel_cases']} kernel cases and "
            f"{c['unsupported_cases']} unsupported-input cases, {c['calls']} "
            f"calls and {c['checks']} checks, all passed, in "
            f"{v['elapsed_s']:g} s of wall time on {where}"
        )
    if v["status"] == "harness-error":
        return f"**harness error**: {inert(v['harness_error'])}"
    first = v["first_failure"]
    return (
        f"**{inert(v['status'])}**: check {_code(first['check'])} failed first, "
        f"on case {_code(first['case'])}, on {where}"
    )


def fmt_sha(name: str) -> str:
    return _code(committed(name)["sha256"])


def fmt_failed_checks(name: str) -> str:
    checks = committed(name)["failed_checks"]
    return ", ".join(_code(c) for c in checks)


def failure_table(name: str) -> str:
    """Every failing (case, check) of a verdict run with --all, first call
    only, as Markdown."""
    rows = []
    for entry in committed(name)["cases"]:
        seen = set()
        for failure in entry["failures"]:
            if failure["check"] in seen:
                continue
            seen.add(failure["check"])
            detail = inert(failure["detail"])  # a candidate's own words
            rows.append([_code(entry["name"]), _code(failure["check"]), detail])
    header = ["case", "check", "the evaluator's words (first failing call)"]
    return _table(header, rows)


# --------------------------------------------------------------------------
# The corpus and the kill matrix
# --------------------------------------------------------------------------


def _corpus() -> dict:
    return committed("corpus")


def corpus_count(status: str) -> int:
    """How many corpus candidates must end with `status`."""
    return sum(e["expected_status"] == status for e in _corpus()["candidates"])


def corpus_table() -> str:
    rows = []
    for e in _corpus()["candidates"]:
        first = e["first_failure"]
        got = "qualified"
        if first:
            got = f"{_code(first['check'])}, {_code(first['case'])}"
        if e["status"] == "inconclusive":
            got = f"inconclusive here ({got})"
        must = inert(e["expected_status"])
        if e["expected_check"]:
            must += f" by {_code(e['expected_check'])}"
        name = Path(e["path"]).name
        rows.append([_code(name), must, inert(e["expected_reason"]), got])
    return _table(["candidate", "must be", "why", "first failing check, case"], rows)


def kill_matrix_table() -> str:
    rows = []
    for check, row in _corpus()["kill_matrix"].items():
        only = ", ".join(_code(Path(p).stem) for p in row["only"]) or "**none**"
        rows.append([_code(check), len(row["catches"]), only])
    header = ["check", "candidates it rejects", "rejected by this check alone"]
    return _table(header, rows)


def fmt_corpus_bound() -> str:
    return f"{_corpus()['interpreter_max_numel']:,}"


def page_facts() -> dict[str, str]:
    """The worked values the page states, formatted, by name."""
    return {
        "axis-limit": fmt_axis_limit(),
        "bench-shapes": fmt_bench_shapes(),
        "corpus-bound": fmt_corpus_bound(),
        "divergence": fmt_divergence(),
        "exit-codes": fmt_exit_codes(),
        "failed-checks.generated_candidate": fmt_failed_checks("generated_candidate"),
        "interpreter-max-numel": fmt_interpreter_max_numel(),
        "isolation": fmt_isolation(),
        "launch-only-cases": fmt_launch_only_cases(),
        "review-constructs": fmt_review_constructs(),
        "sha.residual_add_relu": fmt_sha("residual_add_relu"),
        **limits_facts(),
    }


def facts() -> dict[str, str]:
    """Every value the page states, formatted, by name."""
    return page_facts()
