from snippets.capstone_decision_memo import rubric


def test_rubric_table_and_parts():
    assert rubric.rubric_table().count("\n") == len(rubric.RUBRIC) + 1
    assert "artifact identity" in rubric.fmt_parts()
