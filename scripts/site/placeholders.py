"""Every placeholder kind a page may write, and the check that refuses others.

A placeholder is an HTML comment whose first word names its kind:
``<!-- KIND: ... -->`` or ``<!-- KIND -->``. ``KINDS`` below is the one list:
docs/contributing.md shows it as a table (``kinds_table``, inserted by the
build), and the build refuses a page that uses a kind not listed here, so a
new kind cannot arrive undocumented. Placeholders inside code (fences or
inline code spans) are examples, not placeholders.
"""

from __future__ import annotations

import re

from evidence.tables import markdown_table
from scripts.site.fences import lines_with_fence_state

#: kind -> (the syntax, what replaces it (Markdown), the module expanding it).
KINDS = {
    "insert": (
        "<!-- insert: PATH.py:FUNC(ARGS) -->",
        "`str(FUNC(ARGS))`: a table, a list or a call with arguments "
        "(ARGS are Python literals)",
        "scripts/site/hooks.py",
    ),
    "fact": (
        "<!-- fact: PATH.py:KEY -->",
        "`facts()[KEY]` of that file: one named value",
        "scripts/site/hooks.py",
    ),
    "run": (
        "<!-- run: snippets/x/y.py -->",
        'the "Run it yourself" box with what the file prints (run by the '
        "build, or its committed `y.out.txt` when it imports torch or Triton)",
        "scripts/site/run_boxes.py",
    ),
    "roadmap": (
        "<!-- roadmap: WHAT [ARG] -->",
        "from `docs/roadmap.yml`: a table of its pages, `link docs-path.md` "
        "(a link to that page) or `next` (the page after this one, for "
        '"Read next"; it takes no path)',
        "scripts/site/roadmap.py",
    ),
    "diagram": (
        '<!-- diagram: PATH.py:FUNC(ARGS) "alt text" -->',
        "an SVG figure drawn at build time",
        "scripts/site/diagrams.py",
    ),
    "calculator": (
        "<!-- calculator: PATH.py:FUNC(...) -->",
        "a form that runs FUNC in the reader's browser",
        "scripts/site/calculators.py",
    ),
    "predict": (
        '<!-- predict: PATH.py:FUNC(ARGS) "question" -->',
        "a guess-then-reveal question (optional `measured=PATH.py:FUNC()`)",
        "scripts/site/calculators.py",
    ),
    "glossary": (
        "<!-- glossary -->",
        "the glossary's terms (`scripts/site/glossary.yml`)",
        "scripts/site/glossary.py",
    ),
    "badge": (
        "<!-- badge: KIND -->",
        "the evidence badge at the end of a claim: `model`, `interpreter`, "
        "`artifact`, `measured` (`measured, CPU` on a CPU) or `published`",
        "scripts/site/badges.py",
    ),
}


def kinds_table() -> str:
    """The kinds as the contributing guide's table (each syntax marked as an
    example, so the built page may show it)."""
    rows = [
        [f"`{syntax}`{{ .placeholder-example }}", becomes, f"`{module}`"]
        for syntax, becomes, module in KINDS.values()
    ]
    header = ["placeholder", "becomes", "expanded by"]
    return markdown_table(header, rows, escape=False) + "\n"


PLACEHOLDER_RE = re.compile(r"<!--\s*(?P<kind>[A-Za-z][\w-]*)\s*(?::|-->)")
INLINE_CODE_RE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def kinds_used(markdown: str) -> list[tuple[int, str]]:
    """(line number, kind) of each placeholder outside code."""
    found = []
    for number, (line, in_code) in enumerate(lines_with_fence_state(markdown), 1):
        if in_code:
            continue
        for match in PLACEHOLDER_RE.finditer(INLINE_CODE_RE.sub("", line)):
            found.append((number, match["kind"]))
    return found


def unknown_kinds(markdown: str) -> list[tuple[int, str]]:
    """The placeholders whose kind is not documented here."""
    return [
        (number, kind) for number, kind in kinds_used(markdown) if kind not in KINDS
    ]


def refuse_unknown(markdown: str, src: str) -> None:
    """Raise ValueError naming the page, line and kind of the first
    placeholder of an undocumented kind."""
    unknown = unknown_kinds(markdown)
    if unknown:
        number, kind = unknown[0]
        raise ValueError(
            f"docs/{src}:{number}: unknown placeholder kind {kind!r}; the kinds are "
            f"{', '.join(KINDS)} (a new one goes into KINDS in "
            "scripts/site/placeholders.py)"
        )
