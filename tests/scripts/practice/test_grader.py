"""The practice grader on every exercise, three ways: the solution passes,
the starter fails, and each typical wrong attempt fails with the hint that
names its mistake (the hint each file's docstring promises). One child
process runs them all, so torch and Triton load once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts.practice.exercises import BY_NAME, EXERCISES
from scripts.practice.grader import PracticeError, check, check_many
from tests.helpers.shared import once_per_session

#: What each wrong attempt's failure must say (a phrase of its hint).
EXPECTED_HINT = {
    "vector_add/wrong_floor_grid": "is the grid rounded up",
    "vector_add/wrong_mask_off_by_one": "wrote past the end of out",
    "relu_scale/wrong_nan_to_zero": "NaN must stay NaN",
    "relu_scale/wrong_no_bias": "are scale and bias both applied",
    "strided_copy_2d/wrong_assumes_contiguous": "x.stride(0) and x.stride(1)",
    "strided_copy_2d/wrong_one_column_block": "every column block",
    "row_softmax/wrong_pad_with_zero": "must load as -inf",
    "row_softmax/wrong_no_max": "subtract the row's max",
    "reduce_sum_two_pass/wrong_adds_onto_out": "not added onto zero",
    "reduce_sum_two_pass/wrong_first_block_only": "every block's partial sums",
    "reduce_sum_deterministic/wrong_float_atomics": "a float atomic (fadd) touched out",
    "reduce_sum_deterministic/wrong_unmasked_tail": "read past the end",
    "rms_norm/wrong_divides_by_block": "not by the block size",
    "rms_norm/wrong_no_weight": "then multiplied by w",
    "transpose_tiled/wrong_not_swapped": "the swapped position",
    "transpose_tiled/wrong_rows_only_masked": "mask rows and columns",
    "block_scan/wrong_no_carry": "totals of all blocks before it",
    "block_scan/wrong_exclusive": "includes x[i]",
    "softmax_merge/wrong_no_rescale": "rescaled by exp",
    "softmax_merge/wrong_inverted_scale": "rescale each sum by exp",
    "matmul_tiled/wrong_k_tail_unmasked": "mask the K tail",
    "matmul_tiled/wrong_k_not_advanced": "advance both pointers",
    "attention_tile_causal/wrong_hides_own_key": "positions <= its own",
    "attention_tile_causal/wrong_no_scale": "scaled before the softmax",
    "fix_missing_mask/wrong_load_only": "mask the store, not only the load",
    "fix_missing_mask/wrong_drops_last": "is the last block masked",
    "fix_int32_offset_overflow/wrong_widens_too_late": "int32 offset wrap",
    "fix_int32_offset_overflow/wrong_widens_the_wrong_term": "int32 offset wrap",
    "fix_missing_carry/wrong_own_total": "not its own",
    "fix_missing_carry/wrong_previous_only": "blocks 0..b-1",
}


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
                [o.case, o.passed, o.message] for o in result.outcomes
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


@pytest.mark.parametrize("exercise", [e.name for e in EXERCISES])
def test_the_solution_passes_and_the_starter_fails(graded, exercise):
    folder = BY_NAME[exercise].folder.name
    solution = graded[f"{folder}/solution"]
    assert all(passed for _, passed, _ in solution), solution
    assert len(solution) == len(BY_NAME[exercise].cases)
    starter = graded[f"{folder}/starter"]
    assert not all(passed for _, passed, _ in starter), starter


@pytest.mark.parametrize("attempt", sorted(EXPECTED_HINT))
def test_each_wrong_attempt_fails_with_the_hint_naming_its_mistake(graded, attempt):
    outcomes = graded[attempt]
    failed = [message for _, passed, message in outcomes if not passed]
    assert failed, f"{attempt} passed every case"
    assert any(EXPECTED_HINT[attempt] in message for message in failed), failed


def test_every_wrong_attempt_has_an_expected_hint():
    files = {
        f"{p.parent.name}/{p.stem}"
        for _, p in every_file()
        if p.stem.startswith("wrong_")
    }
    assert files == set(EXPECTED_HINT)


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
    failed = [o.message for o in outcomes if not o.passed]
    assert failed and all(m.startswith("a load read past the end of x") for m in failed)
