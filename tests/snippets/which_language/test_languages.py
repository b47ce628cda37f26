"""snippets/which_language/languages.py: the decision grid, the choice made
from it, the line counts, and the page's numbers."""

import pytest

import evidence
from evidence.published import mixing_problems
from snippets.which_language import languages as L
from tests.helpers.page_numbers import typed_numbers

PAGE = evidence.ROOT / "docs" / "kernels" / "below-triton" / "which-language.md"
NAMES = {"sm_90a", "sm_100a", "sm_120a", "FlashAttention-3", "tcgen05"}


def test_the_page_types_no_numbers():
    assert typed_numbers(PAGE, NAMES) == []


def test_the_page_keeps_published_figures_apart_from_ours():
    assert mixing_problems(PAGE.read_text(encoding="utf-8"), PAGE.name) == []


def test_every_row_names_every_language():
    for decision, cells in L.GRID.items():
        assert len(cells) == len(L.LANGUAGES), decision
        assert set(cells) <= {"you", "compiler", "autotuner", "library"}


def test_lower_languages_never_take_a_decision_back_from_you():
    # CUDA and PTX leave everything to you; Gluon everything Triton does and more.
    for decision in L.GRID:
        assert L.who(decision, "CUDA C++ and PTX") == "you"
        if L.who(decision, "Triton") == "you":
            assert L.who(decision, "Gluon") == "you"


def test_exercise_answers_by_hand():
    # Swizzle and warp roles in Python: Helion and Triton leave the swizzle to
    # the compiler; Gluon is the first "you" in both rows.
    facts = L.facts()
    assert facts["ex1.answer"] == "Gluon"
    # The exact instruction in Python: Gluon leaves it to the compiler, and
    # ThunderKittens is C++; the CuTe DSL names it with its atoms.
    assert facts["ex2.answer"] == "CuTe DSL"
    ratio = L.kernel_lines("Gluon, sm_100a") / L.kernel_lines("Triton, version 2")
    assert facts["ex3.ratio"] == f"{ratio:.1f}"


def test_every_decision_at_once_takes_cute_and_an_impossible_one_is_refused(
    monkeypatch,
):
    assert L.highest_level(tuple(L.GRID)) == "CuTe DSL"
    monkeypatch.setitem(L.GRID, "nobody's", ("compiler",) * len(L.LANGUAGES))
    with pytest.raises(ValueError, match="no language"):
        L.highest_level(("nobody's",))


def test_an_unknown_decision_is_named():
    with pytest.raises(ValueError, match="unknown decision"):
        L.who("colour of the GPU", "Triton")


def test_line_counts_read_the_kernels_and_name_a_missing_function(monkeypatch):
    assert L.kernel_lines("Triton, version 2") > 10
    assert L.kernel_lines("Gluon, sm_100a") > L.kernel_lines("Gluon, sm_90a")
    monkeypatch.setitem(L.KERNEL_PARTS, "ghost", ("gluon.py", ("no_such_kernel",)))
    with pytest.raises(ValueError, match="no_such_kernel"):
        L.kernel_lines("ghost")
