"""Checks on what a built page shows, for tests/site/test_rendered.py: a page's
HTML in, what a reader would see wrong out. Not a test module itself."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from scripts.site.placeholders import KINDS

#: The class the contributing guide puts on code that shows a placeholder on
#: purpose: `<!-- fact: ... -->`{ .placeholder-example }.
EXAMPLE = "placeholder-example"
MARKER_RE = re.compile(r"<!--\s*(" + "|".join(map(re.escape, KINDS)) + r")\s*:")
COMMENT_RE = re.compile(r"^\s*(" + "|".join(map(re.escape, KINDS)) + r")\s*:")
VOID = {"br", "img", "hr", "input", "meta", "link", "wbr", "source", "col"}


class Reader(HTMLParser):
    """Walks a page keeping its open elements and their classes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, set[str]]] = []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            classes = set((dict(attrs).get("class") or "").split())
            self.stack.append((tag, classes))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def inside(self, tag: str = "", cls: str = "") -> bool:
        return any(
            (not tag or t == tag) and (not cls or cls in c) for t, c in self.stack
        )


class Markers(Reader):
    """Placeholder markers a page shows (text, code spans, code blocks) or
    keeps as comments, except code the page marks as an example."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def handle_data(self, data):
        if self.inside(cls=EXAMPLE) or self.inside("script") or self.inside("style"):
            return
        for match in MARKER_RE.finditer(data):
            where = "code" if self.inside("code") else "text"
            self.found.append(f"{where}: {data[match.start() :][:60]!r}")

    def handle_comment(self, data):
        if COMMENT_RE.match(data):
            self.found.append(f"comment: <!--{data[:60]}")


def markers(html: str) -> list[str]:
    reader = Markers()
    reader.feed(html)
    return reader.found


class Answers(Reader):
    """The first thing each folded answer shows after its title."""

    def __init__(self):
        super().__init__()
        self.depth = 0  # stack depth of the answer's <details>, 0 outside
        self.waiting = False
        self.firsts: list[str] = []

    def handle_starttag(self, tag, attrs):
        super().handle_starttag(tag, attrs)
        if tag == "details" and "success" in self.stack[-1][1]:
            self.depth, self.waiting = len(self.stack), False
        elif self.depth and len(self.stack) == self.depth + 1 and tag != "summary":
            if self.waiting:
                self.firsts.append(tag)
                self.waiting = False

    def handle_endtag(self, tag):
        if self.depth and tag == "summary" and len(self.stack) == self.depth + 1:
            self.waiting = True
        super().handle_endtag(tag)
        if self.depth and len(self.stack) < self.depth:
            self.depth, self.waiting = 0, False


def answer_starts(html: str) -> list[str]:
    """Folded answers ("??? success") whose first element is a list: a
    number at the start of an answer became a list marker, and the reader
    sees "1." instead of it (the audit's F4)."""
    reader = Answers()
    reader.feed(html)
    return [f"answer opens with <{t}>" for t in reader.firsts if t in ("ol", "ul")]


def site_problems(site: Path, check) -> dict[str, list[str]]:
    """{page: problems} for every built page."""
    found = {}
    for page in sorted(site.rglob("*.html")):
        problems = check(page.read_text(encoding="utf-8"))
        if problems:
            found[page.relative_to(site).as_posix()] = problems
    return found


# --------------------------------------------------------------------------
# Numbers typed into a page's prose (checked on the Markdown source: a fact
# or an insert is a placeholder there, a typed number is not)
# --------------------------------------------------------------------------

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,}).*?^\1\2\s*$", re.MULTILINE | re.DOTALL)
#: A footnote is a citation: its numbers belong to the source it names.
FOOTNOTE = re.compile(r"^\[\^[\w-]+\]:.*?(?=\n(?! {4}|\n)|\Z)", re.M | re.DOTALL)
STRIPPED = [
    re.compile(r"\A---\n.*?\n---\n", re.DOTALL),  # front matter
    re.compile(r"<!--.*?-->", re.DOTALL),  # placeholders
    re.compile(r"`[^`\n]+`"),  # code
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"\[\^[\w-]+\]"),  # footnote markers
    re.compile(r'"[^"]+"', re.DOTALL),  # quoted sources and titles
    re.compile(r"“[^”]+”", re.DOTALL),
    re.compile(r"^\s*\d+\.\s", re.MULTILINE),  # list numbers
    re.compile(r"^\*\*\d+\.", re.MULTILINE),  # bold exercise numbers
    re.compile(r"<[^>\n]+>"),  # HTML tags
    re.compile(r"\{[^}\n]*\}"),  # attribute lists, heading ids
    # labels: pass 3, block 2, version 1, step 2 name a thing, not a quantity
    re.compile(r"\b(pass|block|version|step|stage|exercise)\s+\d+\b", re.I),
]
TOKEN = re.compile(r"[\w.:()×/-]*\d[\w.:()×/-]*")
#: A word that starts with a letter names something (H200, sm_90a, bf16,
#: ZeRO-3, Llama-3); it is not a quantity to recompute.
NAME = re.compile(r"^[A-Za-z][\w.×/-]*$")


def typed_numbers(markdown: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """Numbers a page types into its prose, beyond names and `allowed`."""
    text = FENCE.sub(" ", markdown)
    text = FOOTNOTE.sub(" ", text)
    for pattern in STRIPPED:
        text = pattern.sub(" ", text)
    tokens = (token.strip(".,:;-()") for token in TOKEN.findall(text))
    return [t for t in tokens if t and not NAME.match(t) and t not in allowed]
