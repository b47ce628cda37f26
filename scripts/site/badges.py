"""Evidence badges: ``<!-- badge: KIND -->`` at the end of a claim becomes one
small badge naming the kind of evidence behind it, linked to the home page's
table of kinds.

KIND is one of ``EVIDENCE_KINDS``. A measurement may name where it ran after
a comma (``<!-- badge: measured, CPU -->``), so a CPU timing never reads as a
GPU one. Any other spelling fails the build, naming the page; and
``tests/site/test_page_rules.py`` refuses the old italic tags (``*CPU
model.*``, ``*Compiled for sm_90a*``, ...) anywhere in ``docs/``.
"""

from __future__ import annotations

import html
import posixpath
import re

from scripts.site.fences import substitute_in_prose

# kind -> (the badge's word, what the tooltip says it establishes)
EVIDENCE_KINDS = {
    "model": ("model", "Pencil or CPU model: counts and arithmetic, no device"),
    "interpreter": ("interpreter", "Triton interpreter on a CPU: values, not speed"),
    "artifact": (
        "artifact",
        "Compiled artifact: instructions and resources, not speed",
    ),
    "measured": ("measured", "Measured by this project, on the device named"),
    "published": ("published", "Published figure, from the source the text names"),
}
# The home page's table of kinds, which every badge links to.
KINDS_PAGE = "index.md"
KINDS_ANCHOR = "evidence"

BADGE_RE = re.compile(r"<!--\s*badge:(?P<body>[^>]*?)-->")
BODY_RE = re.compile(
    r"^\s*(?P<kind>[a-z]+)\s*(?:,\s*(?P<where>[A-Za-z0-9 ._-]{1,24}?))?\s*$"
)


class BadgeError(ValueError):
    """A badge placeholder with a kind that is not one of the five."""


def badge_markdown(body: str, src: str) -> str:
    """The Markdown of one badge, linked from page `src` to the kinds table."""
    match = BODY_RE.match(body)
    if match is None or match["kind"] not in EVIDENCE_KINDS:
        raise BadgeError(
            f"docs/{src}: badge {body.strip()!r}: write <!-- badge: KIND --> with "
            f"KIND one of {', '.join(EVIDENCE_KINDS)} (a measurement may add where "
            f"it ran: <!-- badge: measured, CPU -->)"
        )
    kind, where = match["kind"], match["where"]
    if where and kind != "measured":
        raise BadgeError(
            f"docs/{src}: badge {body.strip()!r}: only a measurement names where "
            f"it ran; write <!-- badge: {kind} -->"
        )
    word, meaning = EVIDENCE_KINDS[kind]
    label = f"{word} · {where}" if where else word
    link = posixpath.relpath(KINDS_PAGE, posixpath.dirname(src) or ".")
    title = html.escape(f"Evidence: {meaning}", quote=True)
    return (
        f"[{label}]({link}#{KINDS_ANCHOR}){{ .evidence-badge .evidence-{kind} "
        f'title="{title}" }}'
    )


def expand_badges(markdown: str, src: str) -> str:
    """Replace every badge placeholder outside code with its badge."""
    return substitute_in_prose(
        BADGE_RE, lambda match: badge_markdown(match["body"], src), markdown
    )
