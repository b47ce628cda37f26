"""Regenerate the committed qualification results.

Usage (from the repository root)::

    python -m scripts.qualify.refresh verdicts [--device cpu|cuda]
    python -m scripts.qualify.refresh corpus [--task NAME]

``verdicts`` writes ``results/qualify/<name>.<device>.json`` for the
course's kernel of the task, the two teaching examples and the interview
candidate;
``corpus`` writes ``results/qualify/corpus.cpu.json``: every known-broken and
known-good candidate, what it must do, what the evaluator did, and the kill
matrix; ``corpus --task NAME`` writes ``results/qualify/corpus-NAME.cpu.json``
for another task's corpus (its broken and good candidates and its course
kernel), with a kill matrix by check and by case. All are kind "verdict"
of ``evidence``. The comparison of
eager, ``torch.compile`` and the custom kernel is a benchmark result
(``python -m scripts.bench --profile compare NAME``).

The pages read only these files (``scripts/site/qualify_pages.py``); tests
check that they still match what the evaluator produces.
"""

from __future__ import annotations

import ast
import re
import sys
import time
from pathlib import Path

from evidence import ROOT, sha256_bytes
from evidence import read as read_result
from evidence import write as write_result
from evidence.provenance import git_identity
from scripts.cli import OneLineParser
from scripts.qualify import contract, evaluator
from scripts.qualify.checks import CHECK_ORDER
from scripts.qualify.task import find, of_family, tasks

RESULTS = ROOT / "results" / "qualify"
#: The task whose corpus and page verdicts are committed.
TASK = of_family("elementwise-binary")
KERNEL_FILE = TASK.kernel_file
CANDIDATES = TASK.corpus

# name -> (candidate file, run every case?)
COMMITTED_VERDICTS = {
    TASK.name: (KERNEL_FILE, False),
    "broken_tail_unwritten": (
        "snippets/triton_qualification/broken_tail_unwritten.py",
        False,
    ),
    "broken_nan_to_zero": (
        "snippets/triton_qualification/broken_nan_to_zero.py",
        False,
    ),
    "generated_candidate": (
        "snippets/qualify_a_generated_kernel/generated_candidate.py",
        True,
    ),
}


def result_path(name: str, device: str = "cpu", folder: Path = RESULTS) -> Path:
    return Path(folder) / f"{name}.{device}.json"


# --------------------------------------------------------------------------
# The corpus: candidates that must be rejected, and ones that must pass
# --------------------------------------------------------------------------

EXPECTED_RE = re.compile(r"^Expected(?: check)?: (?P<what>[\w-]+)\s*$", re.MULTILINE)


def corpus_files() -> list[str]:
    """Every corpus candidate, as a repository path: the broken and good
    files under tests/scripts/qualify/candidates/, the page examples, and
    the project's own kernel (which must qualify)."""
    broken = sorted((ROOT / CANDIDATES / "broken").glob("*.py"))
    good = sorted((ROOT / CANDIDATES / "good").glob("*.py"))
    good += sorted((ROOT / CANDIDATES / "hostile").glob("*.py"))
    examples = sorted((ROOT / "snippets/triton_qualification").glob("broken_*.py"))
    examples.append(ROOT / "snippets/qualify_a_generated_kernel/generated_candidate.py")
    paths = [p.relative_to(ROOT).as_posix() for p in broken + examples + good]
    return paths + [KERNEL_FILE]


def expectation(path: str) -> dict:
    """What a corpus file must do, read from its docstring: `Expected check:
    NAME` (rejected, first failing check NAME) or `Expected: qualified`."""
    text = (ROOT / path).read_text(encoding="utf-8")
    doc = ast.get_docstring(ast.parse(text)) or ""
    reason = " ".join(doc.split("\n\n")[0].split())
    if path in {t.kernel_file for t in tasks().values()}:
        return {"status": "qualified", "check": None, "reason": reason}
    match = EXPECTED_RE.search(doc)
    if not match:
        raise ValueError(f"{path}: the docstring has no 'Expected check:' line")
    what = match["what"]
    if what in ("qualified", "inconclusive"):
        return {"status": what, "check": None, "reason": reason}
    return {"status": "rejected", "check": what, "reason": reason}


CASE_RE = re.compile(r"^Expected case: (?P<case>[\w-]+)\s*$", re.MULTILINE)


def expected_case(path: str) -> str | None:
    """The case a broken candidate of a task's corpus must fail in, from its
    docstring (`Expected case: NAME`), or None."""
    doc = ast.get_docstring(ast.parse((ROOT / path).read_text("utf-8"))) or ""
    match = CASE_RE.search(doc)
    return match and match["case"]


def task_corpus_files(name: str) -> list[str]:
    """A task's corpus: its broken and good candidates, and its kernel."""
    task = find(name)
    found = sorted((ROOT / task.corpus / "broken").glob("*.py"))
    found += sorted((ROOT / task.corpus / "good").glob("*.py"))
    return [p.relative_to(ROOT).as_posix() for p in found] + [task.kernel_file]


def task_corpus_entry(path: str, verdict: dict) -> dict:
    """A corpus entry with the case its docstring names and the cases that
    failed, for a kill matrix by case."""
    failed = [c["name"] for c in verdict.get("cases", []) if c["result"] == "fail"]
    return {
        **corpus_entry(path, verdict),
        "expected_case": expected_case(path),
        "failed_cases": failed,
    }


def case_kill_matrix(candidates: list[dict]) -> dict[str, dict[str, list[str]]]:
    """case -> {"catches": candidates failing it, "only": candidates failing
    it alone}, over the cases some candidate fails."""
    matrix: dict[str, dict[str, list[str]]] = {}
    for entry in candidates:
        for case in entry["failed_cases"]:
            row = matrix.setdefault(case, {"catches": [], "only": []})
            row["catches"].append(entry["path"])
            if len(entry["failed_cases"]) == 1:
                row["only"].append(entry["path"])
    return dict(sorted(matrix.items()))


def corpus_entry(path: str, verdict: dict) -> dict:
    first = verdict.get("first_failure")
    return {
        "reviewed": bool(verdict.get("gate") and verdict["gate"]["overridden"]),
        "path": path,
        "sha256": verdict["sha256"],
        **{f"expected_{k}": v for k, v in expectation(path).items()},
        "status": verdict["status"],
        "first_failure": first and {"case": first["case"], "check": first["check"]},
        "failed_checks": verdict["failed_checks"],
        "elapsed_s": verdict["elapsed_s"],
    }


# The corpus runs every case of every candidate, so it interprets values up
# to a smaller size than a single qualification does (2**21): the
# benchmark's 1024x1024 shape gets its launch checked, not its values, which
# keeps the whole corpus near 20 s of CPU time. No check's catch depends on
# values at that size.
CORPUS_MAX_NUMEL = 2**18
# Per case; the hanging candidate costs this much. Generous, because a busy
# machine slows a case that compiles for sm_90a to several seconds.
CORPUS_TIMEOUT_S = 10.0
#: Per case, for the other tasks' corpora: their cases interpret hundreds of
#: programs (a row each, a query each), which a loaded machine stretches
#: past 10 s; none of their candidates hangs on purpose.
TASK_CORPUS_TIMEOUT_S = 60.0


def qualify_for_corpus(path: str, device: str = "cpu", task: str | None = None) -> dict:
    """Every case of one corpus file. A candidate meant to show a run-time
    check runs with the static gate overridden (as a reviewer would), so the
    check it is there for is shown to catch it; one meant for the gate
    (``Expected check: source-gate``) does not."""
    data = (ROOT / path).read_bytes()
    reviewed = None
    if expectation(path)["check"] != "source-gate":
        reviewed = sha256_bytes(data)
    return evaluator.qualify(
        ROOT / path,
        device,
        collect_all=True,
        timeout_s=TASK_CORPUS_TIMEOUT_S if task else CORPUS_TIMEOUT_S,
        max_numel=CORPUS_MAX_NUMEL,
        reviewed=reviewed,
        task=task,
    )


def kill_matrix(
    candidates: list[dict], checks: list[str] = CHECK_ORDER
) -> dict[str, dict[str, list[str]]]:
    """check -> {"catches": candidates it rejects, "only": candidates no other
    check rejects}. A check whose "only" list is empty could be removed
    without losing a catch."""
    matrix = {check: {"catches": [], "only": []} for check in checks}
    for entry in candidates:
        if entry.get("expected_status") == "inconclusive":
            continue  # failures a known divergence explains kill nothing
        for check in entry["failed_checks"]:
            matrix[check]["catches"].append(entry["path"])
        if len(entry["failed_checks"]) == 1:
            matrix[entry["failed_checks"][0]]["only"].append(entry["path"])
    return matrix


#: The checks whose catch a GPU can change (a hang, a race, a write after
#: return, the compiled code, NaN through the device's max): on a short lease
#: the device run qualifies only the candidates these catch, and the kernel.
DEVICE_CHECKS = (
    "completes",
    "compiles-for-gpu",
    "nan-mask",
    "deterministic",
    "unchanged-after-return",
)


def device_subset() -> list[str]:
    return [
        path
        for path in corpus_files()
        if path == KERNEL_FILE or expectation(path)["check"] in DEVICE_CHECKS
    ]


def run_corpus(
    paths: list[str] | None = None,
    device: str = "cpu",
    write_to: Path | None = None,
    task: str | None = None,
) -> dict:
    """Qualify every candidate (of `task`'s corpus, when named); with
    ``write_to``, the file is rewritten after each one, so a run stopped at
    its time limit keeps what it judged."""
    started = time.monotonic()
    entries = []
    git = git_identity()
    entry_of = task_corpus_entry if task else corpus_entry

    def record() -> dict:
        # Only a task's entries carry the cases that failed (task_corpus_entry).
        by_task = (
            {"task": task, "case_kill_matrix": case_kill_matrix(entries)}
            if task
            else {}
        )
        return {
            "schema_version": contract.SCHEMA_VERSION,
            "record": "corpus",
            **by_task,
            "device": device,
            "interpreter_max_numel": CORPUS_MAX_NUMEL,
            "software": evaluator.software(),
            "checks": list(CHECK_ORDER),
            "candidates": entries,
            "kill_matrix": kill_matrix(entries),
            "elapsed_s": round(time.monotonic() - started, 1),
            "git": git,
        }

    order = task_corpus_files(task) if task else corpus_files()
    if task and paths and write_to is not None and Path(write_to).is_file():
        # --only on a task's corpus: the other candidates' entries are kept
        kept = read_result("verdict", write_to).data["candidates"]
        entries += [e for e in kept if e["path"] in order and e["path"] not in paths]
    for path in paths or order:
        entry = entry_of(path, qualify_for_corpus(path, device, task))
        entries.append(entry)
        entries.sort(key=lambda e: order.index(e["path"]))
        print(f"{entry['status']:9} {path}", flush=True)
        if write_to is not None:
            write_result("verdict", write_to, record())
    return record()


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------


#: The seed of the committed verdicts the pages show, so a refresh with
#: nothing changed rewrites the same cases in the same order (a run of the
#: evaluator itself draws a fresh seed).
PAGE_SEED = 1


def refresh_verdicts(device: str = "cpu", folder: Path = RESULTS) -> None:
    for name, (path, collect_all) in COMMITTED_VERDICTS.items():
        verdict = evaluator.qualify(
            ROOT / path, device, collect_all=collect_all, seed=PAGE_SEED
        )
        target = result_path(name, device, folder)
        write_result("verdict", target, verdict)
        print(f"{verdict['status']:9} {path} -> {target}")


def main(argv=None) -> int:
    parser = OneLineParser(
        prog="python -m scripts.qualify.refresh",
        tool="python -m scripts.qualify.refresh",
        exit_code=2,
    )
    parser.add_argument("what", choices=("verdicts", "corpus"))
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument(
        "--out", type=Path, default=RESULTS, help="folder for the verdict files"
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--only", nargs="+", metavar="PATH", help="corpus candidates to run"
    )
    which.add_argument(
        "--device-subset",
        action="store_true",
        help="only the candidates whose catch a GPU can change, and the kernel",
    )
    parser.add_argument(
        "--task", help="another task's corpus (results/qualify/corpus-NAME.*.json)"
    )
    args = parser.parse_args(argv)
    if args.task is not None and args.task not in tasks():
        parser.error(f"--task: no task {args.task!r}; known: {', '.join(tasks())}")
    known = task_corpus_files(args.task) if args.task else corpus_files()
    for path in args.only or ():
        if path not in known:
            parser.error(f"--only {path!r} is not a corpus candidate")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.what == "corpus":
        paths = args.only or (device_subset() if args.device_subset else None)
        name = f"corpus-{args.task}" if args.task else "corpus"
        target = result_path(name, args.device, args.out)
        run_corpus(paths, device=args.device, write_to=target, task=args.task)
    else:
        refresh_verdicts(args.device, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
