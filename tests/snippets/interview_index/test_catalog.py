"""The interview catalog, and the rules every exercise page keeps: a level
and a time budget, a visible question, then the folded answer, rubric and
follow-ups, and nothing above the question's fold that gives the answer
away. Each rule is also shown failing on a known-bad page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts.site.hooks import FACT_RE, INSERT_RE, fact_value, run_insert
from snippets.interview_index import catalog

PAGES = sorted(p for p in catalog.PAGES.glob("*.md") if p.stem != "index")
QUESTION_RE = re.compile(r'^!!! question "', re.M)
FOLD_RE = re.compile(r"^\?\?\?\+? \w+", re.M)
PLACEHOLDER_RE = re.compile(r"<!--\s*(?:fact|insert):[^\n]*?-->")
CODE_RE = re.compile(r"```.*?```|`[^`\n]+`", re.S)
BOLD_RE = re.compile(r"\*\*([^*\n]+?)\*\*")
# A number of two digits or more; shorter ones (a 2, an 8) are too common
# in any setup to say anything about the answer.
# A number, not the digits of a name such as bf16 or sm_90a.
NUMBER_RE = re.compile(r"(?<![A-Za-z_\d.,])\d[\d,]*(?:\.\d+)?")


def expand_one(placeholder: str) -> str:
    fact = FACT_RE.fullmatch(placeholder.strip())
    if fact:
        return fact_value(fact["path"], fact["key"])
    call = INSERT_RE.fullmatch(placeholder)
    return run_insert(call["path"], call["func"], call["args"], "interview/")


def expand(text: str) -> str:
    return PLACEHOLDER_RE.sub(lambda m: expand_one(m.group(0)), text)


def numbers(text: str) -> set[str]:
    return {n for n in NUMBER_RE.findall(text) if len(n.replace(",", "")) >= 2}


def split(text: str) -> tuple[str, str]:
    """The page above the question's first fold, and the rest."""
    question = QUESTION_RE.search(text)
    if not question:
        raise AssertionError('no `!!! question "..."` block')
    fold = FOLD_RE.search(text, question.end())
    if not fold:
        raise AssertionError("no folded answer after the question")
    return text[: fold.start()], text[fold.start() :]


def answer_fold(after: str) -> str:
    """The first fold: its title line and the lines indented under it."""
    lines = after.splitlines()
    body = [lines[0]]
    for line in lines[1:]:
        if line and not line.startswith((" ", "\t")):
            break
        body.append(line)
    return "\n".join(body)


def leaks(text: str) -> list[str]:
    """Answer text shown above the question's fold: the numbers of every value
    the folds insert (less those the setup itself inserts, the givens, and
    those in the setup's own code), the answer's bold phrases, a run box."""
    before, after = split(text)
    problems = []
    if "<!-- run:" in before:
        problems.append("a run box above the question's fold")
    # A value the setup inserts is a given, unless its key says it answers.
    given = {
        m.group(0)
        for m in PLACEHOLDER_RE.finditer(before)
        if ":answer." not in m.group(0)
    }
    answers = {m.group(0) for m in PLACEHOLDER_RE.finditer(after)} - given
    shown = expand(before)
    allowed = set().union(*(numbers(expand_one(g)) for g in given), set())
    allowed |= set().union(*(numbers(c) for c in CODE_RE.findall(before)), set())
    tokens = set().union(*(numbers(expand_one(a)) for a in answers), set()) - allowed
    prose = CODE_RE.sub(" ", shown)
    for token in sorted(tokens):
        if re.search(rf"(?<![A-Za-z_\d.,]){re.escape(token)}(?![\d])", prose):
            problems.append(f"the answer's number {token} appears above the fold")
    fold = expand(answer_fold(after))
    for phrase in BOLD_RE.findall(fold):
        words = phrase.strip(" .:").casefold()
        if len(words) >= 12 and words in shown.casefold():
            problems.append(f"the answer's phrase {phrase!r} appears above the fold")
    return problems


def structure(text: str) -> list[str]:
    """The parts every exercise page has, after the question, in order."""
    _, after = split(text)
    titles = re.findall(r'^\?\?\?\+? (\w+) "([^"]+)"', after, re.M)
    problems = []
    kinds = [kind for kind, _ in titles]
    if not kinds or kinds[0] != "success":
        problems.append("the first fold after the question is not the answer")
    rubric = re.search(
        r'^\?\?\? abstract "Rubric[^"]*"\n(.*?)(?=^\S)', after, re.M | re.S
    )
    if not rubric:
        problems.append("no folded rubric")
    else:
        for level in ("Junior", "Mid-level", "Senior"):
            if f"**{level}.**" not in rubric.group(1):
                problems.append(f"the rubric has no {level} answer")
    if not any(
        kind == "tip" and title.startswith("Follow-ups") for kind, title in titles
    ):
        problems.append("no folded follow-ups")
    if "<!-- run:" not in answer_fold(after):
        problems.append("no run box inside the answer's fold")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_each_exercise_page_keeps_the_shape(page):
    assert structure(page.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_nothing_above_the_question_gives_the_answer_away(page):
    assert leaks(page.read_text(encoding="utf-8")) == []


AMDAHL = "snippets/interview_amdahl/answer.py"
RUN_BOX = f"<!-- run: {AMDAHL} -->"
NEW_STEP = f"<!-- fact: {AMDAHL}:answer.new_step -->"

GOOD = """---
access: premium
---

# A known page

Given <!-- fact: snippets/interview_amdahl/answer.py:given.step -->.

!!! question "The question"
    What is it?

??? success "Answer"
    **The step shrinks a lot.** It becomes
    <!-- fact: snippets/interview_amdahl/answer.py:answer.new_step -->.

    <!-- run: snippets/interview_amdahl/answer.py -->

??? abstract "Rubric: junior, mid-level, senior"
    - **Junior.** a
    - **Mid-level.** b
    - **Senior.** c

??? tip "Follow-ups the interviewer asks"
    1. more
"""


def test_a_known_good_page_passes_both_checks():
    assert structure(GOOD) == [] and leaks(GOOD) == []


@pytest.mark.parametrize(
    "bad, problem",
    [
        (GOOD.replace("What is it?", "What is it? (197.5 ms)"), "number 197.5"),
        (GOOD.replace("Given", "The step shrinks a lot. Given"), "phrase"),
        (GOOD.replace("# A known page", RUN_BOX), "run box"),
        (GOOD.replace("Given", f"It ends at {NEW_STEP}. Given"), "number 197.5"),
    ],
    ids=["typed-number", "bold-phrase", "run-box", "inserted-number"],
)  # fmt: skip
def test_a_leaking_page_is_caught(bad, problem):
    assert any(problem in p for p in leaks(bad)), leaks(bad)


@pytest.mark.parametrize(
    "bad, problem",
    [
        (GOOD.replace("- **Senior.** c", "- c"), "no Senior"),
        (GOOD.replace('tip "Follow-ups', 'tip "Notes'), "no folded follow-ups"),
        (GOOD.replace('??? success "Answer"', '??? note "Hint"'), "not the answer"),
        (GOOD.replace(f"    {RUN_BOX}\n", ""), "no run box"),
    ],
    ids=["no-senior", "no-follow-ups", "hint-first", "no-run-box"],
)  # fmt: skip
def test_a_page_missing_a_part_is_caught(bad, problem):
    assert any(problem in p for p in structure(bad)), structure(bad)


def test_a_page_without_a_question_is_refused():
    with pytest.raises(AssertionError, match="no `!!! question"):
        split(GOOD.replace("!!! question", "!!! note"))


# ------------------------------------------------------------ the catalog


def test_the_catalog_has_three_levels_and_ten_or_more_exercises():
    found = catalog.exercises()
    assert len(found) >= 10
    assert {e["level"] for e in found} == set(catalog.LEVELS)
    assert {e["area"] for e in found} == set(catalog.AREAS)
    assert sum(1 for e in found if e["graded"]) >= 3
    keys = [
        (list(catalog.LEVELS).index(e["level"]), e["minutes"], e["name"]) for e in found
    ]
    assert keys == sorted(keys)


def test_every_loop_fits_45_minutes():
    for loop in catalog.LOOPS:
        assert catalog.loop_minutes(loop) == 45, loop


def test_card_and_table_name_the_grader():
    assert "`row-softmax`" in catalog.card("row-softmax")
    assert "not a question reported from any employer" in catalog.card("row-softmax")
    table = catalog.exercise_table()
    assert table.count("\n") == len(catalog.exercises()) + 2
    assert "[Write a row softmax](row-softmax.md)" in table


def _page(tmp_path: Path, name: str, front: str) -> Path:
    (tmp_path / f"{name}.md").write_text(f"---\naccess: free\n{front}---\n\n# T\n")
    return tmp_path


@pytest.mark.parametrize(
    "front, message",
    [
        ("", "no 'interview:'"),
        ("interview:\n  level: hard\n  minutes: 5\n  area: kernels\n", "level must be"),
        (
            "interview:\n  level: screen\n  minutes: ten\n  area: kernels\n",
            "minutes must",
        ),
        ("interview:\n  level: screen\n  minutes: 10\n  area: art\n", "area must"),
    ],
    ids=["none", "level", "minutes", "area"],
)
def test_a_bad_declaration_is_refused(tmp_path, front, message):
    with pytest.raises(ValueError, match=message):
        catalog.exercises(_page(tmp_path, "x", front))


def test_facts_count_the_pages():
    facts = catalog.facts()
    assert facts["count"] == str(len(PAGES))
    assert facts["loop.kernel"] == "45 minutes"
