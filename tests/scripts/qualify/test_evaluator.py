"""The evaluator (scripts/qualify.py) against its own corpus, and its harness.

Every known-broken candidate must be rejected by the check its docstring
names, every known-good one must qualify, and the kill matrix must show that
each check catches some broken candidate no other check catches. The corpus
runs under the Triton interpreter, one child process per candidate.
"""

import json
import math
import textwrap

import pytest

from scripts import qualify, qualify_report, qualify_worker
from scripts.qualify_report import (
    COMMITTED_VERDICTS,
    CORPUS_TIMEOUT_S,
    corpus_files,
    expectation,
    kill_matrix,
    load_json,
    qualify_for_corpus,
    result_path,
)


def committed_corpus() -> dict:
    data = load_json(result_path("corpus"))
    assert data, "results/qualify/corpus.cpu.json is missing: run " + (
        "python scripts/qualify_report.py corpus"
    )
    return {entry["path"]: entry for entry in data["candidates"]}


def stable(verdict: dict) -> dict:
    """What a page shows that must not change: the file, its verdict, the
    first failure (not its numbers: a kernel that never writes its output
    returns whatever memory held) and every check that failed. The live run
    here runs every case, so a committed first-failure verdict is compared
    on its first failure only."""
    first = verdict["first_failure"]
    return {
        "candidate": verdict["candidate"],
        "sha256": verdict["sha256"],
        "status": verdict["status"],
        "first": first and (first["case"], first["check"], first["call"]),
    }


# --------------------------------------------------------------------------
# The corpus, both directions
# --------------------------------------------------------------------------


@pytest.mark.parametrize("path", corpus_files())
def test_corpus_candidate_gets_its_expected_verdict(path):
    expected = expectation(path)
    verdict = qualify_for_corpus(path)
    assert verdict["status"] == expected["status"], (
        f"{path}: expected {expected['status']}, got {verdict['status']}: "
        f"{verdict['first_failure']}"
    )
    if expected["check"]:
        assert verdict["first_failure"]["check"] == expected["check"], (
            f"{path} must be caught first by {expected['check']}, was caught "
            f"by {verdict['first_failure']}"
        )
    committed = committed_corpus()[path]
    entry = qualify_report.corpus_entry(path, verdict)
    assert entry["first_failure"] == committed["first_failure"]
    if len(committed["failed_checks"]) <= 1:  # the kill matrix relies on these
        assert verdict["failed_checks"] == committed["failed_checks"]
    if path == qualify_report.KERNEL_FILE:
        assert verdict["elapsed_s"] < 60, "the measure: one candidate in 60 s"
    for name, (example, _) in COMMITTED_VERDICTS.items():
        if example == path:  # a verdict a page shows: still what it says?
            shown = load_json(result_path(name))
            assert shown, "missing verdict: python scripts/qualify_report.py verdicts"
            assert stable(verdict) == stable(shown), (
                f"{result_path(name)} is stale: run "
                "python scripts/qualify_report.py verdicts"
            )


def test_corpus_is_large_enough_and_the_committed_file_is_current():
    entries = committed_corpus()
    assert sorted(entries) == sorted(corpus_files()), (
        "results/qualify/corpus.cpu.json lists other files than the corpus: "
        "run python scripts/qualify_report.py corpus"
    )
    broken = [p for p in entries if expectation(p)["status"] == "rejected"]
    good = [p for p in entries if expectation(p)["status"] == "qualified"]
    assert len(broken) >= 12 and len(good) >= 3
    for path, entry in entries.items():
        assert entry["expected_status"] == entry["status"], path


def test_every_check_catches_a_candidate_no_other_check_catches():
    corpus = {"candidates": list(committed_corpus().values())}
    matrix = kill_matrix(corpus)
    assert list(matrix) == qualify.CHECK_ORDER
    never_alone = [check for check, row in matrix.items() if not row["only"]]
    assert not never_alone, f"checks with no candidate only they catch: {never_alone}"


def test_kill_matrix_reports_a_check_that_never_fires():
    corpus = {"candidates": [{"path": "a.py", "failed_checks": ["values"]}]}
    matrix = kill_matrix(corpus)
    assert matrix["values"]["only"] == ["a.py"]
    assert matrix["nan-mask"] == {"catches": [], "only": []}


# --------------------------------------------------------------------------
# Committed verdicts shown on pages
# --------------------------------------------------------------------------


def test_committed_kernel_verdict_matches_the_kernel_file():
    committed = load_json(result_path("residual_add_relu"))
    current = qualify_report.sha256_of(qualify.ROOT / qualify_report.KERNEL_FILE)
    assert committed["sha256"] == current, (
        "kernels/residual_add_relu.py changed since its verdict was committed: "
        "python scripts/qualify_report.py verdicts"
    )
    assert committed["status"] == "qualified"
    assert committed["counts"]["kernel_cases"] == qualify.kernel_case_count()


# --------------------------------------------------------------------------
# The case list and the contract's counts
# --------------------------------------------------------------------------


def test_case_counts_are_those_the_issue_asks_for():
    assert qualify.kernel_case_count() == 27
    assert qualify.unsupported_case_count() == 5
    names = [case.name for case in qualify.cases()]
    assert len(names) == len(set(names))


def test_cases_cover_the_required_sizes_and_dtypes():
    sizes = set()
    dtypes = set()
    for case in qualify.kernel_cases():
        for call in case.calls("cpu", qualify.INTERPRETER_MAX_NUMEL):
            if call.x is not None and call.x.get("kind") == "strided":
                sizes.add(math.prod(call.x["size"]))
                dtypes.add(call.x["base"].dtype)
    assert {1, 256, 257} <= sizes
    assert len(dtypes) == 3
    assert any(n > 65535 for n in sizes)
    shapes, source = qualify.bench_shapes()
    assert source == "scripts/bench.py" and len(shapes) == 3


def test_only_cases_too_large_for_the_interpreter_are_launch_only():
    limit = qualify.INTERPRETER_MAX_NUMEL
    launch_only = []
    for case in qualify.kernel_cases():
        calls = case.calls("cpu", limit)
        if case.launch_only("cpu", limit):
            launch_only.append(case.name)
            assert all(c.mode == "plan" for c in calls), case.name
            assert math.prod(calls[0].x["size"]) > limit
        else:
            assert all(c.mode == "values" for c in calls), case.name
            sizes = [math.prod(c.x["size"]) for c in calls if c.x]
            assert max(sizes, default=0) <= limit, case.name
        assert case.mode_on("cuda") == "values", case.name  # never built here
    assert launch_only == ["programs-past-65535", "bench-32768x4096",
                           "bench-50021x4099"]  # fmt: skip


def test_grid_limits_are_cudas():
    assert qualify_worker.grid_violation((2**31 - 1, 65535, 65535)) is None
    assert "dimension 1" in qualify_worker.grid_violation((1, 65536, 1))
    assert "dimension 0" in qualify_worker.grid_violation((2**31, 1, 1))


# --------------------------------------------------------------------------
# The harness: exit codes, crashes, hangs, JSON
# --------------------------------------------------------------------------


def write(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def test_no_such_file_is_a_harness_error(tmp_path, capsys):
    assert qualify.main([str(tmp_path / "missing.py")]) == 2
    assert "no such file" in capsys.readouterr().out


def test_syntax_error_is_a_harness_error(tmp_path, capsys):
    path = write(tmp_path, "bad.py", "def residual_add_relu(x, residual:\n")
    assert qualify.main([str(path)]) == 2
    assert "syntax error on line 1" in capsys.readouterr().out


def test_missing_function_is_a_harness_error_before_running(tmp_path, capsys):
    path = write(tmp_path, "other.py", "raise SystemExit('must not run')\n")
    assert qualify.main([str(path), "--json", str(tmp_path / "v.json")]) == 2
    out = capsys.readouterr().out
    assert "defines no function residual_add_relu" in out
    assert "raise SystemExit" in out  # the source is shown first
    saved = json.loads((tmp_path / "v.json").read_text())
    assert saved["status"] == "harness-error" and saved["sha256"]


def test_function_that_is_not_callable_is_a_harness_error(tmp_path):
    path = write(tmp_path, "none.py", "residual_add_relu = None\n")
    verdict = qualify.qualify(path)
    assert verdict["exit_code"] == 2
    assert "defines no function" in verdict["harness_error"]


def test_an_import_that_raises_is_a_rejection(tmp_path):
    path = write(
        tmp_path, "imports.py",
        """
        import no_such_module_anywhere
        def residual_add_relu(x, residual):
            return x
        """,
    )  # fmt: skip
    verdict = qualify.qualify(path, timeout_s=CORPUS_TIMEOUT_S)
    assert verdict["exit_code"] == 1
    assert verdict["first_failure"]["check"] == "completes"
    assert "ModuleNotFoundError" in verdict["first_failure"]["detail"]


@pytest.mark.parametrize(
    "body, expected",
    [
        ("import os\n    os._exit(3)", "exited with code 3"),
        ("import os, signal\n    os.kill(os.getpid(), signal.SIGSEGV)", "SIGSEGV"),
        ("raise SystemExit(4)", "raised SystemExit: 4"),
    ],
    ids=["exit", "segfault", "system-exit"],
)
def test_a_crash_is_a_rejection_naming_the_case(tmp_path, body, expected):
    path = tmp_path / "crash.py"
    path.write_text(f"def residual_add_relu(x, residual):\n    {body}\n")
    verdict = qualify.qualify(path, timeout_s=CORPUS_TIMEOUT_S)
    assert verdict["status"] == "rejected"
    first = verdict["first_failure"]
    assert (first["case"], first["check"]) == ("size-1", "completes")
    assert expected in first["detail"]
    assert verdict["cases"][-1]["result"] == "not run"


def test_a_hang_while_importing_is_a_rejection(tmp_path):
    path = write(
        tmp_path, "slow.py",
        """
        import time
        time.sleep(60)
        def residual_add_relu(x, residual):
            return x
        """,
    )  # fmt: skip
    verdict = qualify.qualify(path, timeout_s=1.0)
    assert verdict["status"] == "rejected"
    assert "importing the candidate" in verdict["first_failure"]["detail"]


def test_first_failure_mode_stops_and_prints_the_verdict(capsys):
    path = qualify.ROOT / "tests/scripts/candidates/broken/torch_fallback.py"
    assert qualify.main([str(path), "--quiet-source"]) == 1
    out = capsys.readouterr().out
    assert "verdict: REJECTED: check launches-kernel failed on case size-1" in out
    assert out.count("not run") == qualify.kernel_case_count() + 4
    assert "sha256:" in out and "    1 |" not in out
