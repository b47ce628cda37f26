"""The evaluator's harness (scripts/qualify/evaluator.py): the contract,
crashes, hangs, the verdict. The command line is tested in test_main.py, the
child process in test_worker.py, the corpus in test_refresh.py, the case list
in test_cases.py.
"""

import json
import sys
import textwrap

import pytest

import evidence
from scripts.qualify import evaluator
from scripts.qualify.refresh import CORPUS_TIMEOUT_S

ROOT = evidence.ROOT


def _harness_verdict():
    return evaluator.qualify(ROOT / "no-such-file.py")


# --------------------------------------------------------------------------
# The harness: crashes, hangs
# --------------------------------------------------------------------------


def reviewed(path, **options):
    """Qualify a candidate the static gate would refuse, as a reviewer who
    read it would: these tests are about what happens when it runs."""
    sha = evidence.sha256_bytes(path.read_bytes())
    return evaluator.qualify(path, reviewed=sha, **options)


def write(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def test_function_that_is_not_callable_is_a_harness_error(tmp_path):
    path = write(tmp_path, "none.py", "residual_add_relu = None\n")
    verdict = evaluator.qualify(path)
    assert verdict["exit_code"] == 2
    assert "defines no function" in verdict["harness_error"]


@pytest.mark.parametrize("sandboxed", ["bubblewrap", "fallback"])
def test_a_worker_that_fails_before_the_candidate_is_a_harness_error(
    tmp_path, monkeypatch, sandboxed
):
    # The evaluator's own fault (here a plan it cannot read) is exit 2 with
    # the whole traceback, never the candidate's rejection.
    if sandboxed == "fallback":
        monkeypatch.setenv("QUALIFY_SANDBOX", "fallback")
    monkeypatch.setattr(evaluator.sandbox.ForkServer, "_instances", {})
    evaluator.sandbox.bwrap_works.cache_clear()
    written = evaluator._write_inputs

    def broken_plan(work, *args):
        fd = written(work, *args)
        (work / "plan.json").write_text("{not json")
        return fd

    monkeypatch.setattr(evaluator, "_write_inputs", broken_plan)
    try:
        good = ROOT / "kernels/residual_add_relu.py"
        verdict = evaluator.qualify(good, timeout_s=CORPUS_TIMEOUT_S)
    finally:
        for server in evaluator.sandbox.ForkServer._instances.values():
            server.close()
        monkeypatch.undo()
        evaluator.sandbox.bwrap_works.cache_clear()
    assert verdict["exit_code"] == 2 and verdict["status"] == "harness-error"
    error = verdict["harness_error"]
    assert "before the candidate ran" in error and "not the candidate's" in error
    assert "Traceback" in error and "JSONDecodeError" in error  # the whole of it
    assert verdict["cases"] in ([], None) or all(
        c["result"] != "fail" for c in verdict["cases"]
    )


def test_an_import_that_raises_is_a_rejection(tmp_path):
    path = write(
        tmp_path,
        "imports.py",
        """
        import no_such_module_anywhere
        def residual_add_relu(x, residual):
            return x
        """,
    )
    verdict = reviewed(path, timeout_s=CORPUS_TIMEOUT_S)
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
    verdict = reviewed(path, timeout_s=CORPUS_TIMEOUT_S)
    assert verdict["status"] == "rejected"
    first = verdict["first_failure"]
    # the order is shuffled: on an unsupported input a SystemExit is the
    # wrong exception rather than a call that did not complete
    assert first["check"] in ("completes", "error-type")
    assert expected in first["detail"]
    results_seen = [case["result"] for case in verdict["cases"]]
    assert results_seen.count("fail") == 1  # the first case it ran, named
    assert results_seen.count("not run") == len(results_seen) - 1


def test_a_hang_while_importing_is_a_rejection(tmp_path):
    path = write(
        tmp_path,
        "slow.py",
        """
        import time
        time.sleep(60)
        def residual_add_relu(x, residual):
            return x
        """,
    )
    verdict = reviewed(path, timeout_s=1.0)
    assert verdict["status"] == "rejected"
    assert "importing the candidate" in verdict["first_failure"]["detail"]


# --------------------------------------------------------------------------
# What the child leaves: links, FIFOs, huge and nested files, odd strings
# --------------------------------------------------------------------------

HOSTILE_FILES = {
    "stderr-link": (
        "os.remove(os.path.join(work, 'stderr.txt'))\n"
        "    os.symlink({secret!r}, os.path.join(work, 'stderr.txt'))\n"
        "    os._exit(3)",
        "completes",
    ),
    "stderr-fifo": (
        "os.remove(os.path.join(work, 'stderr.txt'))\n"
        "    os.mkfifo(os.path.join(work, 'stderr.txt'))\n"
        "    os._exit(3)",
        "completes",
    ),
    "progress-fifo": (
        "os.remove(os.path.join(work, 'progress'))\n"
        "    os.mkfifo(os.path.join(work, 'progress'))\n"
        "    return (x + residual).relu()",
        "records-well-formed",
    ),
    "nested-status": (
        "open(os.path.join(work, 'status.json'), 'w').write('[' * 100000)\n"
        "    os._exit(0)",
        "records-well-formed",
    ),
    "huge-case-file": (
        "open(os.path.join(work, 'case-0.safetensors'), 'wb').truncate(1 << 36)\n"
        "    open(os.path.join(work, 'progress'), 'a').write('start 0\\nend 0\\n')\n"
        "    os._exit(0)",
        "records-well-formed",
    ),
    "lone-surrogate": ("raise TypeError('bad \\ud800 value \\x1b[31m')", None),
}


@pytest.mark.parametrize("kind", list(HOSTILE_FILES))
def test_what_the_child_leaves_never_makes_a_traceback(tmp_path, kind, capsys):
    secret = tmp_path / "host-only.txt"
    secret.write_text("host secret 12345\n")
    secret.chmod(0o600)
    body, check = HOSTILE_FILES[kind]
    path = tmp_path / "leaves.py"
    path.write_text(
        "import os\n"
        "work = os.path.dirname(os.path.abspath(__file__))\n"
        "def residual_add_relu(x, residual):\n"
        f"    {body.format(secret=str(secret))}\n"
    )
    verdict = reviewed(path, timeout_s=CORPUS_TIMEOUT_S, out=sys.stdout)
    printed = capsys.readouterr().out
    assert verdict["status"] == "rejected", verdict["printed"]
    if check:
        assert verdict["first_failure"]["check"] == check
    assert "12345" not in printed and "12345" not in json.dumps(verdict)
    assert "\x1b" not in printed and "\ud800" not in printed
    evidence.validate("verdict", verdict, "test")


def test_a_lower_ulimit_is_clamped_not_a_traceback(monkeypatch):
    import resource

    monkeypatch.setattr(resource, "getrlimit", lambda which: (3 << 30, 3 << 30))
    limits = evaluator.check_limits("cpu", None, None, "default")
    assert limits.memory_bytes == 3 << 30
    monkeypatch.setattr(resource, "getrlimit", lambda which: (1 << 30, 1 << 30))
    with pytest.raises(evaluator.HarnessError, match="ulimit -v"):
        evaluator.check_limits("cpu", None, None, "default")


def test_the_gate_refuses_with_the_line_and_a_review_overrides_it(tmp_path):
    path = write(
        tmp_path,
        "patch.py",
        """
        import torch
        torch.relu = lambda t: t
        def residual_add_relu(x, residual):
            return x
        """,
    )
    verdict = evaluator.qualify(path)
    assert verdict["first_failure"]["check"] == "source-gate"
    assert verdict["printed"]["verdict"].startswith(
        "verdict: REFUSED (nothing ran): line 3 uses assignment to torch.relu"
    )
    assert verdict["cases"] == [] and verdict["exit_code"] == 1
    other = evaluator.qualify(path, reviewed="0" * 64)
    assert (
        other["status"] == "harness-error"
        and "another version" in (other["harness_error"])
    )


def test_a_candidate_flooding_the_compile_queue_ends_by_the_deadline():
    """200 distinct specialisations per call: the parent stops compiling at
    the run's deadline, so the run ends then (a guard against a hang only,
    at ten times the deadline)."""
    path = evidence.ROOT / "tests/scripts/qualify/candidates/hang"
    path = path / "floods_compile_queue.py"
    deadline = 8.0
    verdict = evaluator.qualify(
        path,
        deadline_s=deadline,
        reviewed=evidence.sha256_bytes(path.read_bytes()),
        show_source=False,
    )
    assert verdict["status"] == "rejected"
    assert verdict["first_failure"]["check"] in ("compiles-for-gpu", "completes")
    assert verdict["elapsed_s"] < 10 * deadline, f"hung: {verdict['elapsed_s']} s"
