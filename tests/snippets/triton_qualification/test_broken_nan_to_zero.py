"""snippets/triton_qualification/broken_nan_to_zero.py, a page example: what its
docstring promises is what its committed verdict says.
tests/scripts/qualify/test_refresh.py re-runs the evaluator on it."""

from scripts.qualify.refresh import COMMITTED_VERDICTS, expectation
from scripts.site.qualify_pages import committed


def test_example_verdict_names_the_promised_check():
    path, _ = COMMITTED_VERDICTS["broken_nan_to_zero"]
    verdict = committed("broken_nan_to_zero")
    assert verdict["candidate"] == path
    assert verdict["status"] == "rejected"
    assert verdict["first_failure"]["check"] == expectation(path)["check"]
