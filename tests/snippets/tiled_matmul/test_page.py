"""The tiled-matmul page keeps the lesson pattern.
Typed numbers are the site-wide rule's (tests/site/test_rendered.py)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "kernels" / "matrix-multiplication" / "tiled-matmul.md"


def test_the_page_tags_every_evidence_kind_and_explains_them_once():
    text = PAGE.read_text(encoding="utf-8")
    for kind in ("model", "interpreter", "artifact", "measured"):
        assert f"<!-- badge: {kind} -->" in text, kind
    assert text.count('??? info "How we know"') == 1
    assert "!!! abstract" not in text


def test_exercise_questions_are_visible_and_only_answers_fold():
    text = PAGE.read_text(encoding="utf-8")
    exercises = text[text.index("## Exercises") : text.index("## Read next")]
    assert "??? question" not in exercises
    assert exercises.count('??? success "Answer"') >= 2
    first_answer = exercises.index('??? success "Answer"')
    assert "traffic.py:exercise.M -->" in exercises[:first_answer]
    assert "traffic.py:exercise.ratio -->" in exercises[first_answer:]
    assert "exercise.ratio" not in exercises[:first_answer]  # no answer above
