"""Evidence badges: five kinds, one spelling each, and no old italic tag left
anywhere in docs/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts.site.badges import (
    BADGE_RE,
    EVIDENCE_KINDS,
    BadgeError,
    badge_markdown,
    expand_badges,
)
from scripts.site.fences import CODE_SPAN_RE, lines_with_fence_state

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"

# An italic or bold phrase made only of evidence words is an old tag
# ("*CPU model.*", "**Compiled for sm_90a.**", "*H200, measured*").
EVIDENCE_WORDS = (
    "cpu|gpu|h200|pencil|model|measured|measurement|interpreter|triton|compiled|"
    "artifact|for|sm_90a|run|and|simulated|documentation|published|device|pure|python"
)
KIND_WORDS = (
    "model|measured|measurement|interpreter|artifact|compiled|documentation|run"
)
OLD_TAG_RE = re.compile(
    rf"(?<![*\w])\*{{1,2}}(?=[^*]*\b(?:{KIND_WORDS})\b)"
    rf"(?:{EVIDENCE_WORDS})(?:[ ,]+(?:{EVIDENCE_WORDS}))*\.?\*{{1,2}}(?![*\w])",
    re.IGNORECASE,
)


def old_tags(markdown: str) -> list[str]:
    """Each line of prose that still spells evidence as loose italics."""
    return [
        line.strip()
        for line, in_code in lines_with_fence_state(markdown)
        if not in_code and OLD_TAG_RE.search(CODE_SPAN_RE.sub("", line))
    ]


def pages():
    return sorted(DOCS.rglob("*.md"))


@pytest.mark.parametrize("kind", sorted(EVIDENCE_KINDS))
def test_each_kind_renders_one_linked_badge(kind):
    text = badge_markdown(f" {kind} ", "kernels/x/page.md")
    assert text.startswith(f"[{kind}](../../index.md#evidence)")
    assert f".evidence-{kind}" in text


def test_a_measurement_names_where_it_ran():
    text = badge_markdown(" measured, CPU ", "inference/page.md")
    assert text.startswith("[measured · CPU](../index.md#evidence)")


@pytest.mark.parametrize(
    "body", ["Model", "cpu model", "pencil", "measured on H200!", "model, CPU", ""]
)
def test_any_other_spelling_is_refused_naming_the_page(body):
    with pytest.raises(BadgeError, match=r"docs/a\.md: badge"):
        badge_markdown(body, "a.md")


def test_badges_in_code_are_left_as_written():
    page = "Text <!-- badge: model -->\n\n```md\n<!-- badge: nonsense -->\n```\n"
    out = expand_badges(page, "a.md")
    assert "<!-- badge: nonsense -->" in out and "evidence-model" in out


def test_the_old_tag_check_catches_known_bad_lines():
    bad = (
        "*CPU model.* Say\nmoving bytes. *CPU model*\n"
        "**Compiled for sm_90a.** x\n*H200, measured* y"
    )
    assert len(old_tags(bad)) == 4
    fine = (
        "*Why the interpreter cannot show any of this.*\n*Exercise 1.* x\n`*CPU model*`"
    )
    assert old_tags(fine) == []


def test_no_page_spells_evidence_as_loose_italics():
    found = {
        p.relative_to(ROOT).as_posix(): tags
        for p in pages()
        if (tags := old_tags(p.read_text(encoding="utf-8")))
        and p != DOCS / "index.md"  # the table of kinds names them in bold
    }
    assert not found, f"write <!-- badge: KIND --> instead of: {found}"


def test_every_badge_on_every_page_is_one_of_the_five():
    for page in pages():
        expand_badges(
            page.read_text(encoding="utf-8"), page.relative_to(DOCS).as_posix()
        )


def test_the_home_page_table_shows_every_kind():
    home = (DOCS / "index.md").read_text(encoding="utf-8")
    table = home[home.index("{ #evidence }") :].split("\n\n")[1]
    kinds = [m["body"].strip() for m in BADGE_RE.finditer(table)]
    assert kinds == list(EVIDENCE_KINDS)
