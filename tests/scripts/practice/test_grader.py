"""The practice grader on every exercise, three ways: the solution passes,
the starter fails, and each typical wrong attempt fails with the hint that
names its mistake (the hint each file's docstring promises). One child
process runs them all, so torch and Triton load once."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from scripts.practice.exercises import BY_NAME, EXERCISES
from scripts.practice.grader import PracticeError, check, check_many
from scripts.practice.hints import GENERIC
from tests.helpers.shared import once_per_session


def mistake_of(path: Path) -> str:
    """The condition a wrong attempt's docstring names: "Mistake: <id>."."""
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    found = re.search(r"^Mistake: (\w+)\.$", doc, re.M)
    assert found, f"{path} names no mistake"
    return found.group(1)


def every_file():
    for exercise in EXERCISES:
        for path in sorted(exercise.folder.glob("*.py")):
            yield exercise, path


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Every file of every exercise, graded once per session."""

    def grade() -> dict:
        checks = list(every_file())
        results = check_many(checks)
        return {
            f"{path.parent.name}/{path.stem}": [
                [o.case, o.passed, o.message, o.hint] for o in result.outcomes
            ]
            for (_, path), result in zip(checks, results, strict=True)
        }

    return once_per_session(tmp_path_factory, "practice-graded", grade)


def test_the_track_has_twelve_exercises_and_three_to_find_and_fix():
    fix = [e for e in EXERCISES if e.find_and_fix]
    assert len(EXERCISES) - len(fix) >= 12 and len(fix) >= 3
    for exercise in EXERCISES:
        names = {p.stem for p in exercise.folder.glob("*.py")}
        assert {"starter", "solution"} <= names, exercise.name
        assert len([n for n in names if n.startswith("wrong_")]) >= 2, exercise.name
        assert (Path("docs") / exercise.lesson).is_file(), exercise.lesson


def attempts(prefix: str) -> list[str]:
    return sorted(
        f"{p.parent.name}/{p.stem}"
        for _, p in every_file()
        if p.stem.startswith(prefix)
    )


@pytest.mark.parametrize("exercise", [e.name for e in EXERCISES])
def test_the_solution_passes_and_the_starter_fails(graded, exercise):
    folder = BY_NAME[exercise].folder.name
    solution = graded[f"{folder}/solution"]
    assert all(passed for _, passed, _, _ in solution), solution
    assert len(solution) == len(BY_NAME[exercise].cases)
    starter = graded[f"{folder}/starter"]
    assert not all(passed for _, passed, _, _ in starter), starter


@pytest.mark.parametrize("attempt", attempts("also_"))
def test_each_unusual_right_attempt_passes(graded, attempt):
    outcomes = graded[attempt]
    assert all(passed for _, passed, _, _ in outcomes), outcomes


@pytest.mark.parametrize("attempt", attempts("wrong_"))
def test_each_wrong_attempt_gets_the_hint_of_its_own_mistake_only(graded, attempt):
    # Hints by diagnosis: the only hint a wrong attempt sees is the one its
    # docstring names, whichever cases it fails.
    outcomes = graded[attempt]
    shown = {hint for _, passed, _, hint in outcomes if not passed}
    assert shown, f"{attempt} passed every case"
    named = mistake_of(Path("practice") / f"{attempt}.py")
    # "none": no condition a hint names is seen, so no hint is given.
    assert shown == ({""} if named == "none" else {named}), outcomes


@pytest.mark.parametrize("exercise", [e.name for e in EXERCISES])
def test_every_hint_of_an_exercise_is_earned_by_one_of_its_attempts(graded, exercise):
    # The wrong attempts, and a find-and-fix starter (whose bug is the
    # exercise, so its docstring cannot name it).
    folder = BY_NAME[exercise].folder
    earned = {mistake_of(p) for p in folder.glob("wrong_*.py")}
    if BY_NAME[exercise].find_and_fix:
        earned |= {h for _, ok, _, h in graded[f"{folder.name}/starter"] if not ok}
    named = set(BY_NAME[exercise].hints)
    assert named <= earned, f"hints no attempt earns: {named - earned}"
    assert earned <= named | set(GENERIC) | {"import", "none"}, earned
    assert set(BY_NAME[exercise].mistakes) <= named, "a mistake without words"


def test_the_misses_of_issue_43_each_have_an_attempt():
    # A hard-coded grid, rms-norm without eps and with eps outside the root,
    # attention without the max, a float32 dot without ieee, a torch one-liner,
    # the folded solution and the reference (by import and by path), and a
    # result a few ulps off.
    wanted = {
        "vector_add/wrong_fixed_grid": "tail_unwritten",
        "rms_norm/wrong_no_eps": "no_eps",
        "rms_norm/wrong_eps_outside_sqrt": "eps_outside",
        "attention_tile_causal/wrong_no_max": "overflow",
        "matmul_tiled/wrong_default_precision": "tf32",
        "vector_add/wrong_torch_one_liner": "no_kernel",
        "vector_add/wrong_imports_the_solution": "import",
        "vector_add/wrong_uses_the_reference": "import",
        "vector_add/wrong_runs_the_solution_file": "foreign",
        "fix_missing_mask/wrong_divides_by_a_third": "ulp",
    }
    for attempt, mistake in wanted.items():
        assert mistake_of(Path("practice") / f"{attempt}.py") == mistake
    sizes = [c.out_shape[0] for c in BY_NAME["vector-add"].cases]
    assert max(sizes) > 4096 and min(sizes) == 0


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"\xff\xfe binary", "not a Python source file"),
        (b"def vector_add(x, y, out)\n    pass\n", "expected ':'"),
        (
            b"def add(x, y, out):\n    pass\n",
            "defines no top-level function 'vector_add'",
        ),
    ],
    ids=["not-python", "syntax-error", "wrong-name"],
)
def test_a_file_that_cannot_run_is_one_line_saying_what_to_fix(
    tmp_path, content, expected
):
    path = tmp_path / "mine.py"
    path.write_bytes(content)
    with pytest.raises(PracticeError, match=re.escape(expected)):
        check(BY_NAME["vector-add"], path)
    with pytest.raises(PracticeError, match="no such file"):
        check(BY_NAME["vector-add"], tmp_path / "missing.py")


def test_a_kernel_that_masks_its_store_but_not_its_load_is_caught(tmp_path):
    # Its output is right under the interpreter; on a GPU the load past the
    # end reads a neighbour's bytes or faults. The guards catch the read.
    source = (BY_NAME["fix-missing-mask"].folder / "solution.py").read_text()
    path = tmp_path / "store_only.py"
    path.write_text(
        source.replace(
            "x = tl.load(x_ptr + offs, mask=mask)", "x = tl.load(x_ptr + offs)"
        )
    )
    outcomes = check(BY_NAME["fix-missing-mask"], path).outcomes
    failed = [o for o in outcomes if not o.passed]
    assert failed
    assert all(o.message.startswith("a load read past the end of x") for o in failed)
    assert {o.hint for o in failed} == {"load_unmasked"}
