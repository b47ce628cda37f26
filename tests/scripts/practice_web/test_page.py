"""The worker's entry points return the grader's report as JSON."""

import json

from scripts.practice.exercises import BY_NAME
from scripts.practice_web import page


def test_check_and_run_report_in_json():
    solution = (BY_NAME["vector-add"].folder / "solution.py").read_text()
    report = json.loads(page.check("vector-add", solution))
    assert report["passed"] and len(report["outcomes"]) == 7
    ran = json.loads(page.run("vector-add", solution))
    assert ran["case"] == "n=0" and ran["out"] == []
    broken = json.loads(page.check("vector-add", solution.replace("mask=mask)", ")")))
    assert not broken["passed"]
    hints = {o["hint"] for o in broken["outcomes"] if not o["passed"]}
    assert "store_unmasked" in hints and hints <= {"store_unmasked", "one_past_end"}
