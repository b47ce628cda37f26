"""The profile tool's record, built from a fake summary (no profiler run:
`python -m scripts.tiny_lm.profile` takes seconds and is not a test)."""

import pytest

from scripts.tiny_lm import profile


def test_record_carries_identity_and_cpu_evidence():
    summary = {"step_total_us": 1.0, "phases": []}
    identity = {"git": {"commit": "abc"}, "device": {"kind": "cpu"}}
    record = profile.build_record(summary, {"profiled_steps": 1}, identity)
    assert record["schema"] == 1
    assert record["made_by"] == profile.COMMAND
    assert record["evidence"].startswith("CPU run")
    assert record["git"] == {"commit": "abc"} and record["trace"] is summary
    assert profile.OUT.name == "profile.cpu.json"


def test_steps_must_be_positive():
    with pytest.raises(SystemExit, match="--steps"):
        profile.main(["--steps", "0"])
