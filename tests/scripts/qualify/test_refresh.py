"""The evaluator against its own corpus, and the committed results
(scripts/qualify/refresh.py).

Every known-broken candidate must be rejected by the check its docstring
names, every known-good one must qualify, and the kill matrix must show that
each check catches some broken candidate no other check catches.

Running the whole corpus live takes about two minutes of CPU, so it is not
part of ``make test``: ``make qualify-refresh`` (``python -m
scripts.qualify.refresh corpus``) runs every candidate and rewrites
``results/qualify/corpus.cpu.json``. The default tests here check that file
against the corpus as it is now (every file's sha256, the verdict its
docstring expects, the kill matrix), and run the evaluator live on a small
subset that covers the paths a run can take: the project's kernel
(qualified, the time measure), a forged record file (rejected by
records-well-formed) and the float64 candidate (inconclusive here); the
hostile escape candidate runs live in test_sandbox.py.
"""

import pytest

import evidence
from scripts.qualify import contract, evaluator, refresh
from scripts.qualify.cases import cases
from scripts.qualify.checks import CHECK_ORDER
from scripts.qualify.refresh import (
    CANDIDATES,
    COMMITTED_VERDICTS,
    corpus_files,
    expectation,
    kill_matrix,
    qualify_for_corpus,
    result_path,
)

#: Run live by the default tests (the rest: ``make qualify-refresh``).
LIVE = [
    f"{CANDIDATES}/broken/forged_progress.py",
    f"{CANDIDATES}/good/float64_accumulate.py",
]  # and the hostile candidate, in test_sandbox.py


def load(path):
    return evidence.read("verdict", path).data if path.is_file() else None


def committed_corpus() -> dict:
    data = load(result_path("corpus"))
    assert data, "results/qualify/corpus.cpu.json is missing: run " + (
        "python -m scripts.qualify.refresh corpus"
    )
    return {entry["path"]: entry for entry in data["candidates"]}


STALE = "is stale: run python -m scripts.qualify.refresh corpus (make qualify-refresh)"


# --------------------------------------------------------------------------
# The committed corpus run, checked against the corpus files (cheap)
# --------------------------------------------------------------------------


def test_committed_corpus_is_the_corpus_as_it_is_now():
    entries = committed_corpus()
    assert sorted(entries) == sorted(corpus_files()), f"corpus.cpu.json {STALE}"
    for path, entry in entries.items():
        current = evidence.sha256_file(evidence.ROOT / path)
        assert entry["sha256"] == current, f"{path} changed: corpus.cpu.json {STALE}"
        expected = expectation(path)
        assert {k: entry[f"expected_{k}"] for k in expected} == expected, path


def test_every_corpus_candidate_got_the_verdict_it_expects():
    for path, entry in committed_corpus().items():
        assert entry["status"] == entry["expected_status"], (
            f"{path}: expected {entry['expected_status']}, got {entry['status']}"
        )
        if entry["expected_check"]:
            assert entry["first_failure"]["check"] == entry["expected_check"], path
        else:
            assert (entry["status"] == "qualified") == (not entry["failed_checks"])


def test_corpus_is_large_enough():
    entries = committed_corpus()
    statuses = [expectation(p)["status"] for p in entries]
    assert statuses.count("rejected") >= 12 and statuses.count("qualified") >= 3
    assert statuses.count("inconclusive") >= 1
    assert any("/hostile/" in p for p in entries)


def test_every_check_catches_a_candidate_no_other_check_catches():
    corpus = load(result_path("corpus"))
    matrix = kill_matrix(corpus["candidates"])
    assert list(matrix) == CHECK_ORDER
    never_alone = [check for check, row in matrix.items() if not row["only"]]
    assert not never_alone, f"checks with no candidate only they catch: {never_alone}"
    # The pages read the matrix and the check order from the file.
    assert corpus["kill_matrix"] == matrix
    assert corpus["checks"] == CHECK_ORDER


def test_kill_matrix_reports_a_check_that_never_fires():
    matrix = kill_matrix([{"path": "a.py", "failed_checks": ["values"]}])
    assert matrix["values"]["only"] == ["a.py"]
    assert matrix["nan-mask"] == {"catches": [], "only": []}
    inconclusive = {"path": "b.py", "failed_checks": ["values"]}
    inconclusive["expected_status"] = "inconclusive"
    assert kill_matrix([inconclusive])["values"]["catches"] == []


def test_corpus_bound_is_the_one_the_corpus_ran_with():
    assert load(result_path("corpus"))["interpreter_max_numel"] == (
        refresh.CORPUS_MAX_NUMEL
    )


def test_expectation_reads_the_docstring(tmp_path, monkeypatch):
    monkeypatch.setattr(refresh, "ROOT", tmp_path)
    (tmp_path / "a.py").write_text('"""Broken.\n\nExpected check: values\n"""\n')
    (tmp_path / "b.py").write_text('"""Fine.\n\nExpected: inconclusive\n"""\n')
    (tmp_path / "c.py").write_text('"""No line."""\n')
    assert expectation("a.py") == {
        "status": "rejected",
        "check": "values",
        "reason": "Broken.",
    }
    assert expectation("b.py")["status"] == "inconclusive"
    with pytest.raises(ValueError, match="Expected check"):
        expectation("c.py")


# --------------------------------------------------------------------------
# Live: a small subset, compared with the committed corpus run
# --------------------------------------------------------------------------


@pytest.mark.parametrize("path", LIVE)
def test_live_run_matches_the_committed_corpus(path):
    verdict = qualify_for_corpus(path)
    committed = committed_corpus()[path]
    entry = refresh.corpus_entry(path, verdict)
    for key in ("sha256", "status", "failed_checks"):
        assert entry[key] == committed[key], (path, key, entry[key])
    # The case order is shuffled per run: the first failing check is the
    # same, the case it shows on need not be when the run stops there.
    first, then = entry["first_failure"], committed["first_failure"]
    assert (first and first["check"]) == (then and then["check"]), path


def test_kernel_qualifies_live_within_the_measure():
    """The committed verdict the pages show, checked live. How long it takes
    is make bench-site's to measure (budget 10 s); the test guards only
    against a hang, at ten times that."""
    verdict = evaluator.qualify(evidence.ROOT / refresh.KERNEL_FILE)
    shown = load(result_path("residual_add_relu"))
    assert verdict["status"] == shown["status"] == "qualified"
    assert verdict["sha256"] == shown["sha256"], (
        "kernels/residual_add_relu.py changed since its verdict was committed: "
        "python -m scripts.qualify.refresh verdicts"
    )
    assert verdict["counts"] == shown["counts"]
    assert verdict["elapsed_s"] < 100, f"hung: {verdict['elapsed_s']} s"


# --------------------------------------------------------------------------
# Committed verdicts shown on pages
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", COMMITTED_VERDICTS)
def test_committed_verdict_is_current_and_agrees_with_the_corpus(name):
    """The pages read the checks, cases, exit codes and limits from the
    verdicts: they must be what the evaluator checks today, for the file as
    it is now, with the outcome the corpus run found."""
    committed = load(result_path(name))
    assert committed, "missing verdict: python -m scripts.qualify.refresh verdicts"
    path, collect_all = COMMITTED_VERDICTS[name]
    assert committed["candidate"] == path
    assert committed["mode"] == ("all" if collect_all else "first-failure")
    assert committed["sha256"] == evidence.sha256_file(evidence.ROOT / path), (
        f"{path} changed since {result_path(name)} was written: "
        "python -m scripts.qualify.refresh verdicts"
    )
    assert committed["contract"] == contract.contract(), (
        f"{result_path(name)} holds an older contract: run "
        "python -m scripts.qualify.refresh verdicts"
    )
    corpus = committed_corpus()[path]
    assert committed["status"] == corpus["status"]
    first = committed["first_failure"]
    assert (first and first["check"]) == (
        corpus["first_failure"] and corpus["first_failure"]["check"]
    )
    if name == "residual_add_relu":
        kernel_cases = sum(c.kind == "kernel" for c in cases())
        assert committed["counts"]["kernel_cases"] == kernel_cases


def test_a_partial_run_of_the_shared_corpus_records_without_task_fields(monkeypatch):
    """`refresh corpus --only PATH` without --task (the device run's dry step)
    once died with KeyError 'failed_cases': only task entries carry them."""
    path = "tests/scripts/qualify/candidates/broken/python_helper_in_kernel.py"
    fake = {
        "sha256": "0" * 64,
        "status": "rejected",
        "gate": None,
        "cases": [],
        "first_failure": None,
        "failed_checks": [refresh.CHECK_ORDER[0]],
        "elapsed_s": 0.1,
    }
    monkeypatch.setattr(refresh, "qualify_for_corpus", lambda *a: fake)
    monkeypatch.setattr(refresh, "git_identity", lambda: {})
    record = refresh.run_corpus([path])
    assert [e["path"] for e in record["candidates"]] == [path]
    assert "case_kill_matrix" not in record and "task" not in record
