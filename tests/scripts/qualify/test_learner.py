"""The learner trust level's process (scripts/qualify/learner.py): how the
child is started. Running files through it is tests/scripts/practice/."""

import resource
import sys
from pathlib import Path

from scripts.qualify.learner import command, limits


def test_the_child_runs_the_learner_child_under_the_interpreter():
    argv, env = command(Path("/tmp/listing.json"))
    assert argv[0] == sys.executable and argv[-1] == "/tmp/listing.json"
    assert "scripts.qualify.learner_child" in argv and "-P" in argv
    assert env["TRITON_INTERPRET"] == "1"


def test_limits_cap_the_address_space():
    import subprocess

    code = "import resource; print(resource.getrlimit(resource.RLIMIT_AS)[0])"
    out = subprocess.run(
        [sys.executable, "-c", code],
        preexec_fn=limits(1 << 34),
        capture_output=True,
        text=True,
        timeout=60,
    )
    soft = int(out.stdout)  # without the limit: RLIM_INFINITY (-1)
    assert soft != resource.RLIM_INFINITY and 0 < soft <= 1 << 34
