"""snippets/layouts_you_choose/compiler.py: the models agree with Triton's own
layout objects on every element, the record the site reads is what the
installed compiler says, and a deliberately wrong layout is caught."""

import pytest

from snippets.layouts_you_choose import compiler, drawing, owners

SPECS = compiler.all_specs()


@pytest.mark.parametrize("name", list(SPECS))
def test_the_model_agrees_with_the_compiler_on_every_element(name):
    spec = SPECS[name]
    live = owners.view_from_bases(spec, compiler.compiler_bases(spec))
    assert owners.mismatches(owners.model(spec), live) == []
    assert len(live) == len(owners.model(spec))


def test_the_record_is_what_the_compiler_says_today():
    assert compiler.current() == owners.recorded(), (
        "rerun compiler.record() and commit compiler_bases.json"
    )


WRONG = {**owners.SPECS["blocked"], "order": [0, 1]}  # the example, order reversed


def test_a_wrong_layout_is_caught_by_the_element_check():
    wrong = owners.view_from_bases(WRONG, compiler.compiler_bases(WRONG))
    problems = owners.mismatches(owners.model(owners.SPECS["blocked"]), wrong)
    assert problems and "model" in problems[0]


def test_the_drawing_is_what_the_compiler_reports():
    bases = compiler.compiler_bases(owners.SPECS["blocked"])
    assert drawing.drawing_problems("blocked", bases) == []


def test_the_drawing_check_fails_on_a_deliberately_wrong_layout():
    problems = drawing.drawing_problems("blocked", compiler.compiler_bases(WRONG))
    assert problems, "a drawing of the wrong layout passed the check"
    assert "compiler" in problems[0]


def test_the_triton_layouts_read_from_the_artifact_are_gluon_objects():
    from triton.experimental.gluon import language as gl

    mma = compiler.gluon_layout(SPECS["triton-mma"])
    assert isinstance(mma, gl.NVMMADistributedLayout)
    assert mma.instr_shape == [16, 256, 16]
    blocked = compiler.gluon_layout(SPECS["triton-blocked"])
    assert blocked.size_per_thread == [1, 8]


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown layout kind"):
        compiler.gluon_layout({"kind": "mystery"})
