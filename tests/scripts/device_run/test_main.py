"""The GPU run's orchestration, with fake steps: order, time limits, budget,
the summary, and arguments refused in one line."""

import json
import os
import sys

import pytest

from scripts.device_run import __main__ as device_run
from scripts.device_run.steps import STEPS, Step


def fake(name, code, limit_s=30, needs_module=""):
    command = ("{py}", "-c", code)
    return Step(name, name, command, command, limit_s, needs_module=needs_module)


@pytest.fixture
def steps(monkeypatch):
    def use(*chosen):
        monkeypatch.setattr(device_run, "STEPS", chosen)

    return use


def run(tmp_path, *extra):
    out = tmp_path / "out"
    rc = device_run.main(["--out", str(out), "--dry-run", *extra])
    return rc, json.loads((out / "summary.json").read_text())


def test_steps_run_in_order_and_are_recorded(tmp_path, steps):
    steps(
        fake("first", "print('one')"),
        fake("second", "import sys; sys.exit(3)"),
        fake("later", "pass", needs_module="scripts/no_such_tool/__main__.py"),
    )
    rc, summary = run(tmp_path)
    assert rc == device_run.EXIT_FAILED
    assert list(summary["steps"]) == ["first", "second", "later"]
    assert summary["steps"]["first"]["status"] == "passed"
    assert summary["steps"]["second"] == {**summary["steps"]["second"], "returncode": 3}
    assert summary["steps"]["later"]["status"] == "absent"
    log = tmp_path / "out" / summary["steps"]["first"]["log"]
    assert log.read_text().strip() == "one"


def test_a_step_that_overruns_is_killed_with_its_children(tmp_path, steps):
    sleeper = (
        "import subprocess, sys, time; "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        "time.sleep(60)"
    )
    steps(fake("slow", sleeper, limit_s=1), fake("next", "pass"))
    rc, summary = run(tmp_path)
    assert summary["steps"]["slow"]["status"] == "overran"
    assert summary["steps"]["next"]["status"] == "passed"
    assert rc == device_run.EXIT_FAILED


def test_no_step_starts_once_the_budget_is_spent(tmp_path, steps):
    steps(fake("only", "pass"))
    rc, summary = run(tmp_path, "--budget-s", "4")
    assert summary["steps"]["only"]["status"] == "skipped"
    assert rc == device_run.EXIT_FAILED


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--budget-s", "nan"], "--budget-s must be"),
        (["--budget-s", "-1"], "--budget-s must be"),
        (["--only", "nope"], "unknown step 'nope'"),
    ],
)
def test_bad_arguments_are_one_line(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as stop:
        device_run.main(["--out", str(tmp_path / "o"), *argv])
    assert stop.value.code == device_run.EXIT_USAGE
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_an_output_folder_with_files_is_refused(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(SystemExit):
        device_run.main(["--out", str(tmp_path), "--dry-run"])
    assert "must be a new or empty folder" in capsys.readouterr().err
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_every_step_names_a_module_that_exists_or_is_optional():
    from scripts.device_run.__main__ import ROOT

    for step in STEPS:
        for command in (step.gpu, step.dry):
            assert command[0] == "{py}" and command[1] == "-m"
            if not command[2].startswith(("scripts.", "snippets.")):
                continue  # pytest
            module = command[2].replace(".", "/")
            found = (ROOT / f"{module}.py").is_file() or (
                ROOT / module / "__main__.py"
            ).is_file()
            assert found or step.needs_module, (step.name, command[2])


def test_the_gpu_commands_never_use_the_interpreter():
    for step in STEPS:
        assert step.gpu_env.get("TRITON_INTERPRET", "0") == "0"
        assert "--dry-run" not in step.gpu and sys.executable not in step.gpu


@pytest.mark.skipif(
    not os.environ.get("DEVICE_RUN_DRY"),
    reason="about 20 s: set DEVICE_RUN_DRY=1 (make device-run-dry runs the tool)",
)
def test_the_real_dry_run_passes_every_step(tmp_path):
    out = tmp_path / "dry"
    rc = device_run.main(["--out", str(out), "--dry-run"])
    summary = json.loads((out / "summary.json").read_text())
    assert {n: r["status"] for n, r in summary["steps"].items()} == {
        s.name: "passed" for s in STEPS
    }
    assert rc == device_run.EXIT_OK
