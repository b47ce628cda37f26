import pytest

from snippets.serving_engine import exercises


def test_full_sequences_by_hand():
    assert exercises.full_sequences_that_fit(24, 16) == 6  # 63 tokens: 4 blocks
    assert exercises.full_sequences_that_fit(63, 1) == 1


def test_texts():
    assert "full-length sequences" in exercises.exercise_text("ex1_a")
    assert exercises.exercise_text("ex2_a").startswith(
        "3 blocks of 16 hold 37 tokens, 11"
    )
    with pytest.raises(ValueError, match="which"):
        exercises.exercise_text("x")
