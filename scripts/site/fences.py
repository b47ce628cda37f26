"""Fenced code blocks in a Markdown page: the one scanner every build step and
test uses to tell code from prose.

A block opens with three or more backticks or tildes (at any indentation, so
blocks inside admonitions count) and closes at the first line made only of
the same character, at least as many of them. An unclosed block runs to the
end of the page, as in Python-Markdown's fenced code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

FENCE_OPEN_RE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
TITLE_RE = re.compile(r'title="(?P<title>[^"]*)"')
CODE_SPAN_RE = re.compile(r"(`+)(?:.+?)\1")


@dataclass(frozen=True)
class Fence:
    """One fenced block: lines[start:stop] of the page, fence lines included."""

    start: int
    stop: int
    indent: str
    info: str
    closed: bool

    @property
    def title(self) -> str | None:
        """The block's `title="..."` option, if it has one."""
        match = TITLE_RE.search(self.info)
        return match["title"] if match else None

    def body(self, lines: list[str]) -> list[str]:
        """The lines between the fences."""
        return lines[self.start + 1 : self.stop - 1 if self.closed else self.stop]


def fences(lines: list[str]) -> Iterator[Fence]:
    """Every fenced block in a page's lines, in order."""
    i = 0
    while i < len(lines):
        opened = FENCE_OPEN_RE.match(lines[i])
        if not opened:
            i += 1
            continue
        start, fence = i, opened["fence"]
        i += 1
        while i < len(lines) and not _closes(lines[i], fence):
            i += 1
        closed = i < len(lines)
        stop = i + 1 if closed else i
        yield Fence(start, stop, opened["indent"], opened["info"], closed)
        i = stop


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and not stripped.strip(fence[0])


def lines_with_fence_state(markdown: str) -> Iterator[tuple[str, bool]]:
    """Each line with whether it belongs to a fenced block (fence lines
    included), so that placeholders shown as examples in code are left
    alone."""
    lines = markdown.split("\n")
    in_code = [False] * len(lines)
    for block in fences(lines):
        in_code[block.start : block.stop] = [True] * (block.stop - block.start)
    yield from zip(lines, in_code, strict=True)


def substitute_outside_code_spans(pattern: re.Pattern, replace, line: str) -> str:
    """pattern.sub on the parts of one line outside `inline code` spans."""
    out, last = [], 0
    for span in CODE_SPAN_RE.finditer(line):
        out.append(pattern.sub(replace, line[last : span.start()]))
        out.append(span.group(0))
        last = span.end()
    out.append(pattern.sub(replace, line[last:]))
    return "".join(out)


def substitute_in_prose(pattern: re.Pattern, replace, markdown: str) -> str:
    """pattern.sub line by line, leaving fenced blocks and inline code alone:
    that is where a page shows a placeholder's syntax rather than using it."""
    return "\n".join(
        line if in_code else substitute_outside_code_spans(pattern, replace, line)
        for line, in_code in lines_with_fence_state(markdown)
    )
