"""The memo checker: the project's memo passes, a memo missing a part fails
naming it, and the CLI's exit codes say which."""

import re
from pathlib import Path

import pytest

from snippets.capstone_decision_memo import check_memo as cm

ROOT = Path(__file__).resolve().parents[3]
MEMO = ROOT / "docs" / "reference" / "decision-memo.md"
INSERT = re.compile(r"<!--\s*insert:\s*([\w./-]+\.py):(\w+)\(([^\n]*?)\)\s*-->")


FACT = re.compile(r"<!--\s*fact:\s*([\w./-]+\.py):([\w.-]+)\s*-->")


def rendered_memo() -> str:
    """The project memo as the build renders it: placeholders expanded."""
    from scripts.site.hooks import fact_value, run_insert

    text = MEMO.read_text(encoding="utf-8")
    text = INSERT.sub(lambda m: run_insert(m[1], m[2], m[3], "reference/"), text)
    return FACT.sub(lambda m: fact_value(m[1], m[2]), text)


@pytest.fixture(scope="module")
def memo() -> str:
    return rendered_memo()


def test_the_project_memo_passes(memo):
    assert cm.check_memo(memo) == []


@pytest.mark.parametrize("part", list(cm.PARTS))
def test_a_memo_missing_a_part_fails_naming_it(memo, part):
    heading = cm.PARTS[part][0]
    kept = [
        line
        for line in memo.splitlines()
        if not (line.startswith("#") and re.search(heading, line.lstrip("# "), re.I))
    ]
    problems = cm.check_memo("\n".join(kept))
    assert any(part in p for p in problems), problems


def test_evidence_is_required_under_the_heading():
    memo = cm.TEMPLATE.replace("<Kernel source sha256", "sha256 18f82ee9eb648647 <")
    problems = cm.check_memo(memo)
    assert not any("artifact identity" in p for p in problems)
    assert any("correctness evidence lacks" in p for p in problems)
    assert any("result by shape lacks" in p for p in problems)


def test_empty_part_and_comments_do_not_count():
    memo = "# M\n## Recommendation\n<!-- adopt -->\n## Maintenance\nowner\n"
    problems = cm.check_memo(memo)
    assert "empty part: recommendation" in problems
    assert not any("maintenance" in p for p in problems)


def test_cli(tmp_path, capsys, memo):
    good = tmp_path / "good.md"
    good.write_text(memo, encoding="utf-8")
    assert cm.main([str(good)]) == 0
    bad = tmp_path / "bad.md"
    bad.write_text(cm.TEMPLATE, encoding="utf-8")
    assert cm.main([str(bad)]) == 1
    assert "artifact identity" in capsys.readouterr().out
    assert cm.main([]) == 2


def test_exercise_answers_name_one_part_each():
    assert "correctness evidence" in cm.exercise_answer("correctness")
    answer = cm.exercise_answer("results")
    assert "result by shape" in answer and "correctness" not in answer
    with pytest.raises(KeyError):
        cm.exercise_answer("other")
    assert cm.template_block().startswith("```markdown\n# Decision memo")
