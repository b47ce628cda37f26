"""The evaluator's harness (scripts/qualify/evaluator.py, __main__.py and
worker.py): exit codes, crashes, hangs, the verdict file. The corpus runs in
test_refresh.py, the case list in test_cases.py.
"""

import json
import textwrap

import pytest

from kernels.launches import GRID_LIMITS, grid_violation
from scripts import results
from scripts.qualify import evaluator, worker
from scripts.qualify.__main__ import main
from scripts.qualify.cases import kernel_cases
from scripts.qualify.refresh import CORPUS_TIMEOUT_S

ROOT = results.ROOT


def test_grid_limits_are_cudas():
    assert GRID_LIMITS == (2**31 - 1, 65535, 65535)
    assert grid_violation((2**31 - 1, 65535, 65535)) is None
    assert "axis 1" in grid_violation((1, 65536, 1))
    assert "axis 0" in grid_violation((2**31, 1, 1))
    # One copy: the worker checks launches with the kernels' own function.
    assert worker.grid_violation is grid_violation
    assert evaluator.contract()["grid_limits"] == list(GRID_LIMITS)


def test_contract_lists_every_check_and_case_in_order():
    data = evaluator.contract()
    assert [c["name"] for c in data["checks"]] == evaluator.CHECK_ORDER
    assert [c["number"] for c in data["cases"]] == list(
        range(1, len(data["cases"]) + 1)
    )
    assert data["exit_codes"] == {"qualified": 0, "rejected": 1, "harness-error": 2}
    results.validate("verdict", {**_harness_verdict(), "contract": data}, "test")


def _harness_verdict():
    return evaluator.qualify(ROOT / "no-such-file.py")


# --------------------------------------------------------------------------
# The harness: exit codes, crashes, hangs, JSON
# --------------------------------------------------------------------------


def write(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def test_no_such_file_is_a_harness_error(tmp_path, capsys):
    assert main([str(tmp_path / "missing.py")]) == 2
    assert "no such file" in capsys.readouterr().out


def test_syntax_error_is_a_harness_error(tmp_path, capsys):
    path = write(tmp_path, "bad.py", "def residual_add_relu(x, residual:\n")
    assert main([str(path)]) == 2
    assert "syntax error on line 1" in capsys.readouterr().out


def test_missing_function_is_a_harness_error_before_running(tmp_path, capsys):
    path = write(tmp_path, "other.py", "raise SystemExit('must not run')\n")
    assert main([str(path), "--json", str(tmp_path / "v.json")]) == 2
    out = capsys.readouterr().out
    assert "defines no function residual_add_relu" in out
    assert "raise SystemExit" in out  # the source is shown first
    saved = json.loads((tmp_path / "v.json").read_text())
    results.read("verdict", tmp_path / "v.json")  # valid against the schema
    assert saved["status"] == "harness-error" and saved["sha256"]


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


def test_first_failure_mode_stops_and_prints_the_verdict(capsys):
    path = ROOT / "tests/scripts/qualify/candidates/broken/torch_fallback.py"
    assert main([str(path), "--quiet-source"]) == 1
    out = capsys.readouterr().out
    assert "verdict: REJECTED: check launches-kernel failed on case size-1" in out
    assert out.count("not run") == len(kernel_cases()) + 4
    assert "sha256:" in out and "    1 |" not in out


def test_the_command_line_runs_as_a_module():
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "scripts.qualify", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0
    assert "python -m scripts.qualify" in done.stdout and "--json" in done.stdout
