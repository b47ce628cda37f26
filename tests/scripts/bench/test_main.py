"""The command line (scripts/bench/__main__.py): exit codes, one-line errors."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.bench import __main__ as cli
from scripts.bench import runner as bench

ROOT = Path(__file__).resolve().parents[3]


def test_no_cuda_gives_its_own_exit_code_and_names_the_cpu_option():
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run(
        [sys.executable, "-m", "scripts.bench", "--device", "cuda"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,  # a hang guard only: a busy machine compiles slowly
    )
    assert done.returncode == bench.EXIT_NO_CUDA == cli.EXIT_NO_CUDA == 3
    assert "no CUDA device" in done.stderr and "--device cpu" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1  # one line, no traceback


def test_unknown_kernel_is_a_usage_error(capsys):
    assert cli.main(["no_such_kernel", "--device", "cpu"]) == bench.EXIT_USAGE
    err = capsys.readouterr().err
    assert "no_such_kernel" in err and len(err.strip().splitlines()) == 1


def test_bad_option_is_one_line_and_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["--profile", "huge", "--device", "cpu"])
    assert stop.value.code == bench.EXIT_USAGE
    err = capsys.readouterr().err
    assert "huge" in err and len(err.strip().splitlines()) == 1


def test_list_names_every_descriptor_and_the_compare_shapes(capsys):
    assert cli.main(["--list", "--device", "cpu"]) == bench.EXIT_OK
    out = capsys.readouterr().out
    assert "residual_add_relu" in out
    assert "compare (cpu): 3×1031, 257×1031, 1024×1024" in out
    assert "compare (cuda): 1024×1024, 8192×4096, 32768×4096" in out


PAGE = ROOT / "docs" / "reference" / "benchmarks.md"


def test_benchmarks_page_states_the_runners_exit_codes():

    table = dict(re.findall(r"^\| (\d+) \| (.+) \|$", PAGE.read_text(), re.M))
    codes = {
        bench.EXIT_OK: "every row correct",
        bench.EXIT_USAGE: "usage error",
        bench.EXIT_NO_CUDA: "no CUDA device",
        bench.EXIT_BAD_ROWS: "a row was incorrect",
        bench.EXIT_INTERRUPTED: "interrupted",
    }
    assert set(map(int, table)) == set(codes)
    for code, words in codes.items():
        assert words in table[str(code)]
