"""scripts/site/fences.py: which lines of a page are code, and substitutions
that leave code alone."""

from __future__ import annotations

import re

import pytest

from scripts.site.fences import (
    fences,
    lines_with_fence_state,
    substitute_in_prose,
    substitute_outside_code_spans,
)

PAGE = """\
Prose.

```python title="snippets/a.py"
--8<-- "snippets/a.py:body"
```

!!! note
    ~~~~markdown
    ~~~
    still code
    ~~~~
after"""


def test_blocks_are_found_with_their_lines_title_and_indent():
    lines = PAGE.split("\n")
    first, second = fences(lines)
    assert (first.start, first.stop, first.indent, first.closed) == (2, 5, "", True)
    assert first.title == "snippets/a.py"
    assert first.body(lines) == ['--8<-- "snippets/a.py:body"']
    # A shorter run of the fence character does not close the block.
    assert (second.start, second.stop, second.indent) == (7, 11, "    ")
    assert second.title is None
    assert second.body(lines) == ["    ~~~", "    still code"]


def test_every_line_knows_whether_it_is_code():
    state = [in_code for _, in_code in lines_with_fence_state(PAGE)]
    assert state == [False, False, True, True, True, False, False] + [True] * 4 + [
        False
    ]


def test_an_unclosed_block_runs_to_the_end():
    lines = ["text", "```", "code", "more"]
    (block,) = fences(lines)
    assert (block.start, block.stop, block.closed) == (1, 4, False)
    assert block.body(lines) == ["code", "more"]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("a X b", "a Y b"),
        ("`X` and X", "`X` and Y"),
        ("``a `X` b`` X", "``a `X` b`` Y"),
    ],
    ids=["prose", "inline-code", "double-backtick-span"],
)
def test_substitution_skips_inline_code(line, expected):
    assert substitute_outside_code_spans(re.compile("X"), "Y", line) == expected


def test_substitution_skips_fenced_blocks():
    page = "X\n```\nX\n```\nX"
    assert substitute_in_prose(re.compile("X"), "Y", page) == "Y\n```\nX\n```\nY"
