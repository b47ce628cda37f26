"""The evaluator against its own corpus, and the committed results
(scripts/qualify/refresh.py).

Every known-broken candidate must be rejected by the check its docstring
names, every known-good one must qualify, and the kill matrix must show that
each check catches some broken candidate no other check catches. The corpus
runs under the Triton interpreter, one child process per candidate.
"""

import pytest

from scripts import results
from scripts.qualify import evaluator, refresh
from scripts.qualify.refresh import (
    COMMITTED_VERDICTS,
    corpus_files,
    expectation,
    kill_matrix,
    qualify_for_corpus,
    result_path,
)


def load(path):
    return results.read("verdict", path).data if path.is_file() else None


def committed_corpus() -> dict:
    data = load(result_path("corpus"))
    assert data, "results/qualify/corpus.cpu.json is missing: run " + (
        "python -m scripts.qualify.refresh corpus"
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
    entry = refresh.corpus_entry(path, verdict)
    assert entry["first_failure"] == committed["first_failure"]
    if len(committed["failed_checks"]) <= 1:  # the kill matrix relies on these
        assert verdict["failed_checks"] == committed["failed_checks"]
    if path == refresh.KERNEL_FILE:
        assert verdict["elapsed_s"] < 60, "the measure: one candidate in 60 s"
    for name, (example, _) in COMMITTED_VERDICTS.items():
        if example == path:  # a verdict a page shows: still what it says?
            shown = load(result_path(name))
            assert shown, "missing verdict: python -m scripts.qualify.refresh verdicts"
            assert stable(verdict) == stable(shown), (
                f"{result_path(name)} is stale: run "
                "python -m scripts.qualify.refresh verdicts"
            )


def test_corpus_is_large_enough_and_the_committed_file_is_current():
    entries = committed_corpus()
    assert sorted(entries) == sorted(corpus_files()), (
        "results/qualify/corpus.cpu.json lists other files than the corpus: "
        "run python -m scripts.qualify.refresh corpus"
    )
    broken = [p for p in entries if expectation(p)["status"] == "rejected"]
    good = [p for p in entries if expectation(p)["status"] == "qualified"]
    assert len(broken) >= 12 and len(good) >= 3
    for path, entry in entries.items():
        assert entry["expected_status"] == entry["status"], path


def test_every_check_catches_a_candidate_no_other_check_catches():
    corpus = load(result_path("corpus"))
    matrix = kill_matrix(corpus["candidates"])
    assert list(matrix) == evaluator.CHECK_ORDER
    never_alone = [check for check, row in matrix.items() if not row["only"]]
    assert not never_alone, f"checks with no candidate only they catch: {never_alone}"
    # The pages read the matrix and the check order from the file.
    assert corpus["kill_matrix"] == matrix
    assert corpus["checks"] == evaluator.CHECK_ORDER


def test_kill_matrix_reports_a_check_that_never_fires():
    matrix = kill_matrix([{"path": "a.py", "failed_checks": ["values"]}])
    assert matrix["values"]["only"] == ["a.py"]
    assert matrix["nan-mask"] == {"catches": [], "only": []}


def test_corpus_bound_is_the_one_the_corpus_ran_with():
    assert load(result_path("corpus"))["interpreter_max_numel"] == (
        refresh.CORPUS_MAX_NUMEL
    )


# --------------------------------------------------------------------------
# Committed verdicts shown on pages
# --------------------------------------------------------------------------


def test_committed_kernel_verdict_matches_the_kernel_file():
    committed = load(result_path("residual_add_relu"))
    current = results.sha256_file(results.ROOT / refresh.KERNEL_FILE)
    assert committed["sha256"] == current, (
        "kernels/residual_add_relu.py changed since its verdict was committed: "
        "python -m scripts.qualify.refresh verdicts"
    )
    assert committed["status"] == "qualified"
    kernel_cases = sum(c.kind == "kernel" for c in evaluator.cases())
    assert committed["counts"]["kernel_cases"] == kernel_cases


@pytest.mark.parametrize("name", COMMITTED_VERDICTS)
def test_committed_verdict_carries_the_contract_the_code_gives(name):
    """The pages read the checks, cases, exit codes and limits from the
    verdicts: they must be what the evaluator checks today."""
    committed = load(result_path(name))
    assert committed["contract"] == evaluator.contract(), (
        f"{result_path(name)} holds an older contract: run "
        "python -m scripts.qualify.refresh verdicts"
    )
    path, collect_all = COMMITTED_VERDICTS[name]
    assert committed["candidate"] == path
    assert committed["mode"] == ("all" if collect_all else "first-failure")
