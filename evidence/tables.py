"""Markdown tables, built one way everywhere.

It lives under snippets/ because a snippet never imports a tool; the site
layer (scripts/site/) imports it from here.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence


def cell(value: object) -> str:
    """One cell's text: HTML-escaped (data may come from outside) and with
    pipes and newlines that would break the row replaced."""
    text = html.escape(str(value), quote=False)
    return text.replace("|", "&#124;").replace("\n", " ")


def markdown_table(
    header: Sequence[str],
    rows: Iterable[Sequence[object]],
    align: str | None = None,
    *,
    escape: bool = True,
) -> str:
    """A Markdown table. ``align`` has one letter per column: ``l``, ``r`` or
    ``c`` (default: all left). With ``escape=False`` cells are trusted
    Markdown (for text this project wrote, such as links or code)."""
    align = align or "l" * len(header)
    if len(align) != len(header):
        raise ValueError(f"align {align!r} does not match {len(header)} columns")
    rule = {"l": "---", "r": "---:", "c": ":---:"}
    show = cell if escape else (lambda value: str(value).replace("\n", " "))
    lines = [
        "| " + " | ".join(show(h) for h in header) + " |",
        "| " + " | ".join(rule[a] for a in align) + " |",
    ]
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"row {row!r} does not have {len(header)} cells")
        lines.append("| " + " | ".join(show(v) for v in row) + " |")
    return "\n".join(lines)
