"""The page builds the CLI's cases: the same inputs, guards and sentinel."""

import pytest

from scripts.practice.exercises import BY_NAME
from scripts.practice_web import cases


def test_the_inputs_are_the_clis_bit_for_bit():
    pytest.importorskip("torch")
    from scripts.practice.grader import build_case

    for name in ("strided-copy-2d", "block-scan", "relu-scale"):
        for index, case in enumerate(BY_NAME[name].cases[:2]):
            theirs = build_case(case, index)
            ours = cases.build(case, index)
            for key, values in ours.items():
                expected = theirs[key].reshape(-1).tolist()
                assert [v if v == v else "nan" for v in values] == [
                    v if v == v else "nan" for v in expected
                ], (name, key)


def test_out_sits_between_sentinel_guards():
    case = BY_NAME["vector-add"].cases[2]
    out = cases.fresh_out(case)
    assert (
        out.offset == cases.GUARD and len(out.storage.values) == 255 + 2 * cases.GUARD
    )
    assert set(out.storage.values) == {cases.sentinel_value(out.dtype)}
    assert cases.sentinel_value(out.dtype) == pytest.approx(3.3961514e38)


def test_an_exercise_past_the_pages_memory_needs_the_local_grader():
    assert not cases.runs_on_page(BY_NAME["fix-int32-offset-overflow"])
    assert cases.runs_on_page(BY_NAME["matmul-tiled"])
