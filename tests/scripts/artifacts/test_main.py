"""The artifact builder's command line (``python -m scripts.artifacts``):
answers without a traceback, and compiles rather than interprets.
tests/scripts/artifacts/test_build.py rebuilds the add kernel through it."""

import os
import subprocess
import sys

import pytest

import scripts.artifacts.__main__ as command_line
from scripts.artifacts import build as artifacts


def test_run_compiles_instead_of_interpreting(monkeypatch):
    # The suite sets TRITON_INTERPRET=1; the builder must switch it off
    # before main() imports any kernel module.
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    seen = []
    monkeypatch.setattr(
        command_line, "main", lambda: seen.append(os.environ["TRITON_INTERPRET"]) or 0
    )
    assert command_line.run() == 0
    assert seen == ["0"]


def test_unknown_kernel_name_is_rejected(capsys):
    assert artifacts.main(["no_such_kernel"]) == 2
    err = capsys.readouterr().err
    assert "unknown kernels ['no_such_kernel']" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "args, status, stream, words",
    [
        (["--help"], 0, "stdout", "usage: python -m scripts.artifacts"),
        (["no_such_kernel"], 2, "stderr", "unknown kernels ['no_such_kernel']"),
        (["--bogus"], 2, "stderr", "unrecognized arguments: --bogus"),
    ],
    ids=["help", "bad-kernel", "bad-option"],
)
def test_command_line_answers_without_a_traceback(args, status, stream, words):
    run = subprocess.run(
        [sys.executable, "-m", "scripts.artifacts", *args],
        cwd=artifacts.ROOT,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only: a busy machine compiles slowly
    )
    assert run.returncode == status, run.stderr
    assert words in getattr(run, stream)
    assert "Traceback" not in run.stderr
    if status:
        assert run.stderr.count("\n") == 1, run.stderr  # one line


def test_an_unknown_target_is_rejected(capsys):
    # Known-broken: a target the builder does not know; one line, status 2.
    with pytest.raises(SystemExit) as exit_info:
        artifacts.main(["scan", "--target", "sm_80"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'sm_80'" in err and len(err.strip().splitlines()) == 1


def test_a_blackwell_target_into_the_second_tritons_folder_is_rejected(
    tmp_path, capsys
):
    # Known-broken: the triton-3.6 folder holds sm_90a only.
    import triton

    folder = tmp_path / f"triton-{triton.__version__.rsplit('.', 1)[0]}"
    assert artifacts.main(["scan", "--out", str(folder), "--target", "sm_100a"]) == 2
    assert "holds sm_90a artifacts only" in capsys.readouterr().err
    assert not folder.exists()
