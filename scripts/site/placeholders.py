"""Every placeholder kind a page may write, and the check that refuses others.

A placeholder is an HTML comment whose first word names its kind:
``<!-- KIND: ... -->`` or ``<!-- KIND -->``. Each kind is documented in
docs/contributing.md ("Placeholders") and in the docstring of
scripts/site/hooks.py; tests/scripts/site/test_placeholders.py checks both,
and the build refuses a page that uses a kind not listed here, so a new
kind cannot arrive undocumented. Placeholders inside code (fences or
inline code spans) are examples, not placeholders.
"""

from __future__ import annotations

import re

from scripts.site.fences import lines_with_fence_state

#: kind -> (the syntax, what replaces it, the module that expands it).
KINDS = {
    "insert": (
        "<!-- insert: PATH.py:FUNC(ARGS) -->",
        "the function's result (a table, a paragraph, a call with arguments)",
        "scripts/site/hooks.py",
    ),
    "fact": (
        "<!-- fact: PATH.py:KEY -->",
        "facts()[KEY] of that file, one named value",
        "scripts/site/hooks.py",
    ),
    "run": (
        "<!-- run: snippets/x/y.py -->",
        'the "Run it yourself" box with the committed output y.out.txt',
        "scripts/site/run_boxes.py",
    ),
    "roadmap": (
        "<!-- roadmap: SECTION -->",
        "a table of the roadmap's pages (built or planned)",
        "scripts/site/roadmap.py",
    ),
    "diagram": (
        '<!-- diagram: PATH.py:FUNC(ARGS) "alt text" -->',
        "an SVG figure drawn at build time",
        "scripts/site/diagrams.py",
    ),
    "calculator": (
        "<!-- calculator: PATH.py:FUNC(...) -->",
        "a form that runs FUNC in the browser (Pyodide)",
        "scripts/site/calculators.py",
    ),
    "predict": (
        "<!-- predict: ... -->",
        "a guess-then-reveal question answered by code",
        "scripts/site/calculators.py",
    ),
    "glossary": (
        "<!-- glossary -->",
        "the glossary's terms (scripts/site/glossary.yml)",
        "scripts/site/glossary.py",
    ),
    "badge": (
        "<!-- badge: KIND -->",
        "the evidence badge at the end of a claim: model, interpreter, "
        "artifact, measured or published",
        "the reader helper's badge renderer",
    ),
}

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
            f"{', '.join(KINDS)} (document a new one in scripts/site/placeholders.py, "
            "docs/contributing.md and the hooks' docstring)"
        )
