"""scripts/cli.py: a bad argument is one line and the tool's exit code."""

import pytest

from scripts.cli import OneLineParser


def test_a_bad_argument_is_one_line_naming_the_tool(capsys):
    parser = OneLineParser(prog="python -m scripts.x", tool="x", exit_code=5)
    parser.add_argument("--n", type=int)
    with pytest.raises(SystemExit) as caught:
        parser.parse_args(["--n", "many"])
    assert caught.value.code == 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("x: argument --n: invalid int value: 'many'")
    assert err.endswith("(see --help)\n")


def test_without_a_tool_name_the_line_starts_with_the_command(capsys):
    parser = OneLineParser(prog="python -m scripts.y")
    with pytest.raises(SystemExit) as caught:
        parser.parse_args(["--bogus"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err == "python -m scripts.y: unrecognized arguments: --bogus (see --help)\n"
