"""The evaluator's harness (scripts/qualify/evaluator.py): the contract,
crashes, hangs, the verdict. The command line is tested in test_main.py, the
child process in test_worker.py, the corpus in test_refresh.py, the case list
in test_cases.py.
"""

import textwrap

import pytest

import evidence as results
from scripts.qualify import evaluator
from scripts.qualify.refresh import CORPUS_TIMEOUT_S

ROOT = results.ROOT


def _harness_verdict():
    return evaluator.qualify(ROOT / "no-such-file.py")


# --------------------------------------------------------------------------
# The harness: crashes, hangs
# --------------------------------------------------------------------------


def write(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def test_function_that_is_not_callable_is_a_harness_error(tmp_path):
    path = write(tmp_path, "none.py", "residual_add_relu = None\n")
    verdict = evaluator.qualify(path)
    assert verdict["exit_code"] == 2
    assert "defines no function" in verdict["harness_error"]


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
    verdict = evaluator.qualify(path, timeout_s=CORPUS_TIMEOUT_S)
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
    verdict = evaluator.qualify(path, timeout_s=CORPUS_TIMEOUT_S)
    assert verdict["status"] == "rejected"
    first = verdict["first_failure"]
    assert (first["case"], first["check"]) == ("size-1", "completes")
    assert expected in first["detail"]
    assert verdict["cases"][-1]["result"] == "not run"


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
    verdict = evaluator.qualify(path, timeout_s=1.0)
    assert verdict["status"] == "rejected"
    assert "importing the candidate" in verdict["first_failure"]["detail"]
