"""python -m scripts.practice: list, start (never overwriting) and bad input
answered in one line."""

import pytest

from scripts.practice import __main__ as cli
from scripts.practice.exercises import EXERCISES
from scripts.practice.grader import EXIT_PASSED, EXIT_USAGE


def test_list_shows_every_exercise(capsys):
    assert cli.main(["list"]) == EXIT_PASSED
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(EXERCISES) >= 15
    assert any("find and fix" in line for line in lines)


def test_a_name_may_be_spelt_with_underscores(tmp_path):
    assert cli.main(["start", "vector_add", str(tmp_path)]) == EXIT_PASSED
    assert (tmp_path / "vector_add.py").exists()


def test_start_copies_the_starter_and_never_overwrites(tmp_path, capsys):
    assert cli.main(["start", "vector-add", str(tmp_path)]) == EXIT_PASSED
    copy = tmp_path / "vector_add.py"
    assert "TODO" in copy.read_text()
    copy.write_text("# my work\n")
    assert cli.main(["start", "vector-add", str(tmp_path)]) == EXIT_USAGE
    assert copy.read_text() == "# my work\n"
    assert "is kept as it is" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["check", "vector-ad", "x.py"], "no exercise 'vector-ad' (did you mean"),
        (["check", "vectr_add", "x.py"], "(did you mean vector-add"),
        (["check", "vector_add", "missing.py"], "missing.py: no such file"),
        (["start", "nope"], "no exercise 'nope'"),
        (["check"], "the following arguments are required"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_saying_what_to_do(capsys, argv, message):
    try:
        code = cli.main(argv)
    except SystemExit as stop:  # argparse's own refusals
        code = stop.code
    assert code == EXIT_USAGE
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_the_progress_line_names_the_running_case_off_a_terminal():
    import io

    stream = io.StringIO()
    progress = cli.Progress(stream)
    for seconds in (0.5, 4, 11, 12, 31):
        progress("n=5000", seconds)
    assert stream.getvalue().splitlines() == [
        "  still running n=5000 after 10 s",
        "  still running n=5000 after 30 s",
    ]


def test_what_the_file_printed_is_shown_after_the_cases(capsys):
    from scripts.practice.grader import Outcome, Report

    report = Report([Outcome("n=1", True)], "a\n" * 50, dropped=7)
    assert cli.show(report, 1, "vector-add") == EXIT_PASSED
    out = capsys.readouterr().out
    assert "your file printed (50 lines):" in out
    assert out.count("  | a\n") == cli.PRINTED_LINES
    assert "10 more lines, 7 more characters" in out


def test_ctrl_c_is_one_line_and_exit_130(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "grade", interrupted)
    assert cli.main(["check", "vector-add", "x.py"]) == cli.EXIT_STOPPED == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "stopped by Ctrl-C" in err
