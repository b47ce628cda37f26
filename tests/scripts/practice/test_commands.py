"""One spelling of every command: the practice pages, the interview pages,
`start`'s output and each starter's docstring show the same `check` line,
``COMMAND check NAME work/<folder>.py``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts.practice import __main__ as cli
from scripts.practice.exercises import BY_NAME, COMMAND, EXERCISES, check_command
from scripts.site.practice_pages import contract

DOCS = Path(__file__).resolve().parents[3] / "docs"


def shown(exercise) -> str:
    return check_command(exercise.name, f"work/{exercise.folder.name}.py")


def commands_in(text: str) -> list[str]:
    """Every grader command in a text, shell line continuations joined."""
    joined = re.sub(r" *\\\n\s*", " ", text)
    return re.findall(r"[^\s`]*python -m scripts\.practice [^\n`]*", joined)


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_the_starter_the_page_and_start_say_the_same_command(
    name, tmp_path, monkeypatch, capsys
):
    exercise = BY_NAME[name]
    starter = (exercise.folder / "starter.py").read_text()
    assert commands_in(starter) == [shown(exercise)]
    assert commands_in(contract(name)) == [
        f"{COMMAND} start {name} work/",
        shown(exercise),
    ]
    monkeypatch.chdir(tmp_path)
    assert cli.main(["start", name, "work/"]) == 0
    assert commands_in(capsys.readouterr().out) == [shown(exercise)]


def test_every_page_spells_the_command_one_way():
    pages = [*(DOCS / "kernels" / "practice").glob("*.md")]
    pages += [*(DOCS / "interview").glob("*.md")]
    seen = [c for page in pages for c in commands_in(page.read_text())]
    assert seen and all(c.startswith(f"{COMMAND} ") for c in seen), seen
    for command in seen:
        verb, *rest = command.removeprefix(f"{COMMAND} ").split()
        if verb == "check" and rest[0] != "NAME":
            assert command == shown(BY_NAME[rest[0]]), command
    assert shown(BY_NAME["vector-add"]) in seen
    assert len(EXERCISES) == len({shown(e) for e in EXERCISES})
