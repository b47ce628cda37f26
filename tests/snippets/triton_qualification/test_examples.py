"""The page examples (snippets/triton_qualification/broken_*.py and the interview
candidate): what each docstring promises is what its committed verdict says.
tests/scripts/qualify/test_refresh.py re-runs the evaluator on each of them."""

import pytest

from scripts.qualify.refresh import COMMITTED_VERDICTS, expectation
from scripts.site.qualify_pages import committed

EXAMPLES = [n for n in COMMITTED_VERDICTS if n != "residual_add_relu"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_verdict_names_the_promised_check(name):
    path, _ = COMMITTED_VERDICTS[name]
    verdict = committed(name)
    assert verdict["candidate"] == path
    assert verdict["status"] == "rejected"
    assert verdict["first_failure"]["check"] == expectation(path)["check"]


def test_the_interview_verdict_lists_every_defect_the_answer_names():
    checks = committed("generated_candidate")["failed_checks"]
    assert {"values", "nan-mask", "error-type"} <= set(checks)
