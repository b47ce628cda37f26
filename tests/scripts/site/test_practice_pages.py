"""scripts/site/practice_pages.py: the track's tables come from the data."""

from scripts.practice.exercises import EXERCISES
from scripts.site import practice_pages


def test_every_exercise_is_on_exactly_one_page():
    shown = [name for names in practice_pages.GROUPS.values() for name in names]
    assert sorted(shown) == sorted(e.name for e in EXERCISES)


def test_the_track_table_links_each_exercise_and_its_lesson():
    table = practice_pages.track_table("kernels/practice/index.md")
    for exercise in EXERCISES:
        assert f"#{exercise.name})" in table
    assert "](../where-time-goes/triton-on-ramp.md)" in table


def test_a_contract_lists_every_case_and_the_commands():
    text = practice_pages.contract("strided-copy-2d")
    assert "transposed 50x37" in text and "a transposed view" in text
    assert "bit for bit" in text
    assert "scripts.practice check strided-copy-2d work/strided_copy_2d.py" in text
    assert "Ruled out" in practice_pages.contract("reduce-sum-deterministic")
