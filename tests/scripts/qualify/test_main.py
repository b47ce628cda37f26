"""The evaluator's command line (scripts/qualify/__main__.py,
``python -m scripts.qualify PATH``): exit codes, what it prints, the
``--json`` verdict file."""

import json
import textwrap

import pytest

import evidence
from scripts.qualify.__main__ import main
from scripts.qualify.cases import cases, kernel_cases

ROOT = evidence.ROOT


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
    assert "defines no function of any task (" in out
    assert "residual_add_relu(x, residual)" in out
    assert "raise SystemExit" in out  # the source is shown first
    saved = json.loads((tmp_path / "v.json").read_text())
    evidence.read("verdict", tmp_path / "v.json")  # valid against the schema
    assert saved["status"] == "harness-error" and saved["sha256"]


def test_first_failure_mode_stops_and_prints_the_verdict(capsys):
    path = ROOT / "tests/scripts/qualify/candidates/broken/torch_fallback.py"
    assert main([str(path), "--quiet-source"]) == 1
    out = capsys.readouterr().out
    assert "verdict: REJECTED: check launches-kernel failed on case " in out
    # The order is shuffled per run, so how many unsupported-input cases ran
    # before the first kernel case varies; every other kernel case never ran.
    not_run = out.count("not run")
    assert len(kernel_cases()) - 1 <= not_run <= len(cases()) - 1
    assert "sha256:" in out and "    1 |" not in out


def test_the_command_line_runs_as_a_module():
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "scripts.qualify", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,  # a hang guard only: a busy machine compiles slowly
    )
    assert done.returncode == 0
    assert "python -m scripts.qualify" in done.stdout and "--json" in done.stdout


@pytest.mark.parametrize(
    "extra, says",
    [
        (["--timeout", "-1"], "--timeout: must be more than 0"),
        (["--timeout", "nan"], "--timeout: must be more than 0"),
        (["--timeout", "0"], "--timeout: must be more than 0"),
        (["--timeout", "soon"], "is not a number"),
        (["--timeout", "99999"], "at most 3600 s"),
        (["--deadline", "inf"], "--deadline: must be more than 0"),
        (["--memory", "0.5"], "--memory must be at least 1 GiB"),
        (["--memory", "lots"], "is not a number of GiB"),
        (["--json", "{tmp}"], "must name a .json file"),
        (["--json", "{tmp}/folder.json"], "is not a plain file"),
        (["--json", "{tmp}/no/such/v.json"], "no such folder"),
        (["--json", "kernels/verdict.json"], "is inside the repository"),
        (["--json", "results/bench/fake.json"], "is inside the repository"),
        (["--device", "tpu"], "invalid choice"),
    ],
)
def test_bad_arguments_are_one_line_errors_before_anything_runs(
    tmp_path, capsys, extra, says
):
    (tmp_path / "folder.json").mkdir()
    path = write(tmp_path, "c.py", "raise SystemExit('must not run')\n")
    argv = [str(path)] + [a.replace("{tmp}", str(tmp_path)) for a in extra]
    try:
        code = main(argv)
    except SystemExit as exc:  # the parser's own refusals
        code = exc.code
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing shown, nothing run
    [line] = captured.err.splitlines()
    assert line.startswith("python -m scripts.qualify: ") and says in line
    assert line.endswith("(see --help)")


def test_json_may_go_under_results_qualify_or_outside_the_repository(tmp_path):
    from scripts.qualify.__main__ import json_path, memory_bytes

    assert json_path(str(tmp_path / "v.json")) == tmp_path / "v.json"
    inside = ROOT / "results/qualify/x.cuda.json"
    assert json_path(str(inside)) == inside
    assert memory_bytes(None) == "default" and memory_bytes("none") is None
    assert memory_bytes("2") == 2 << 30
