"""snippets/qualify_a_generated_kernel/generated_candidate.py, the interview
candidate: what its docstring promises is what its committed verdict says,
and the verdict lists every defect the page's answer names.
tests/scripts/qualify/test_refresh.py re-runs the evaluator on it."""

from scripts.qualify.refresh import COMMITTED_VERDICTS, expectation
from scripts.site.qualify_pages import committed


def test_example_verdict_names_the_promised_check():
    path, _ = COMMITTED_VERDICTS["generated_candidate"]
    verdict = committed("generated_candidate")
    assert verdict["candidate"] == path
    assert verdict["status"] == "rejected"
    assert verdict["first_failure"]["check"] == expectation(path)["check"]


def test_the_interview_verdict_lists_every_defect_the_answer_names():
    checks = committed("generated_candidate")["failed_checks"]
    assert {"values", "nan-mask", "error-type"} <= set(checks)
