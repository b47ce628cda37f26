"""The one Markdown table helper (evidence/tables.py)."""

import pytest

from evidence.tables import cell, markdown_table


def test_a_table_has_a_header_a_rule_and_one_line_per_row():
    text = markdown_table(["a", "b"], [(1, 2), ("x", "y")])
    assert text == "| a | b |\n| --- | --- |\n| 1 | 2 |\n| x | y |"


@pytest.mark.parametrize(
    ("align", "rule"),
    [
        ("lrc", "| --- | ---: | :---: |"),
        ("rrr", "| ---: | ---: | ---: |"),
        (None, "| --- | --- | --- |"),
    ],
    ids=["left-right-centre", "all-right", "default-left"],
)
def test_each_alignment_letter_gives_its_rule(align, rule):
    text = markdown_table(["a", "b", "c"], [], align)
    assert text.splitlines()[1] == rule


def test_an_alignment_of_the_wrong_length_raises():
    with pytest.raises(ValueError, match="does not match 2 columns"):
        markdown_table(["a", "b"], [], "lrr")


def test_an_unknown_alignment_letter_raises():
    with pytest.raises(KeyError):
        markdown_table(["a"], [], "x")


@pytest.mark.parametrize("row", [(1,), (1, 2, 3)], ids=["short", "long"])
def test_a_row_of_the_wrong_length_raises(row):
    with pytest.raises(ValueError, match="does not have 2 cells"):
        markdown_table(["a", "b"], [(1, 2), row])


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("a|b", "a&#124;b"),
        ("<script>", "&lt;script&gt;"),
        ("R&D", "R&amp;D"),
        ("two\nlines", "two lines"),
        ('"quoted"', '"quoted"'),
        (3.5, "3.5"),
    ],
    ids=["pipe", "angle-brackets", "ampersand", "newline", "quotes-kept", "number"],
)
def test_cells_are_escaped_by_default(value, shown):
    assert cell(value) == shown
    row = markdown_table(["h"], [(value,)]).splitlines()[2]
    assert row == f"| {shown} |"


def test_the_header_is_escaped_too():
    assert markdown_table(["a|b"], []).splitlines()[0] == "| a&#124;b |"


def test_escape_false_passes_markdown_through():
    rows = [("`x | y`", "**bold**", "[link](page.md)", "<b>")]
    text = markdown_table(["`code`", "b", "c", "d"], rows, escape=False)
    assert text.splitlines()[0] == "| `code` | b | c | d |"
    assert text.splitlines()[2] == "| `x | y` | **bold** | [link](page.md) | <b> |"


def test_escape_false_still_keeps_a_row_on_one_line():
    text = markdown_table(["a"], [("two\nlines",)], escape=False)
    assert text.splitlines()[2] == "| two lines |"
