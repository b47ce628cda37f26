"""The tiled-matmul page types no number: every figure comes from code.

The check strips what is allowed to hold digits (front matter, code, the
insert placeholders, link targets) and then looks for digits in what is
left. Names that contain digits (bf16, H200, sm_90a) are listed once here.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "kernels" / "matrix-multiplication" / "tiled-matmul.md"

# Names and citation details, not quantities a reader could recompute.
NAMES = {
    "bf16",
    "L2",
    "float32",
    "H200",
    "H100",
    "GH100",
    "sm_90a",
    "2:4",  # the sparsity pattern's name
    "9.0",  # compute capability, a version
    "32-bit",  # a register's width, part of the guide's wording
    "52(4)",  # journal volume and issue
    "2009",  # publication year
}

FENCE = re.compile(r"^(\s*)(`{3,}).*?^\1\2\s*$", re.MULTILINE | re.DOTALL)
STRIPPED = [
    re.compile(r"\A---\n.*?\n---\n", re.DOTALL),  # front matter
    re.compile(r"<!--.*?-->", re.DOTALL),  # insert placeholders
    re.compile(r"`[^`\n]+`"),  # inline code: identifiers and formulas
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"\[\^[\w-]+\]"),  # footnote markers
    re.compile(r"\{[^}\n]*\}"),  # attribute lists
    re.compile(r"^\s*\d+\.\s", re.MULTILINE),  # numbered list markers
]
TOKEN = re.compile(r"[\w.:()-]*\d[\w.:()-]*")


def stray_numbers(markdown: str) -> list[str]:
    text = FENCE.sub("", markdown)
    for pattern in STRIPPED:
        text = pattern.sub(" ", text)
    tokens = (token.strip(".,:;-") for token in TOKEN.findall(text))
    return [token for token in tokens if token and token not in NAMES]


def test_the_page_types_no_numbers():
    assert stray_numbers(PAGE.read_text(encoding="utf-8")) == []


def test_the_check_catches_a_typed_number():
    page = "---\naccess: free\n---\n\nThe ridge is 206 FLOP/byte on an H200.\n"
    assert stray_numbers(page) == ["206"]


def test_the_check_ignores_code_placeholders_and_names():
    page = (
        "```python\nx = 4096\n```\n"
        "In bf16 on sm_90a the ridge is "
        "<!-- fact: snippets/tiled_matmul/traffic.py:h200.ridge -->, "
        "see `BLOCK_M = 128` and [the lesson](../a-1.md#part-2).\n"
    )
    assert stray_numbers(page) == []


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
    assert "exercise_question()" in exercises[:first_answer]
    assert "exercise_answer_text()" in exercises[first_answer:]
