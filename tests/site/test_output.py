"""What the built pages hold: every placeholder and snippet include expanded,
and a page for every roadmap entry whose file exists."""

from __future__ import annotations

import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from scripts.site.roadmap import built_entries, load_roadmap
from tests.site.sitebuild import ROOT

DOCS = ROOT / "docs"
PLACEHOLDER_RE = re.compile(r"<!--\s*(insert|roadmap):")
COMMENT_PLACEHOLDER_RE = re.compile(r"^\s*(insert|roadmap):")
INCLUDE_RE = re.compile(r"-{1,}8<-{1,}")


class PageText(HTMLParser):
    """A page's text split by where it sits, and its HTML comments.

    Inline `<code>` is where pages show placeholder and include syntax to a
    reader, so it is set apart; code blocks (`<pre>`) are not, because the
    build expands includes there too.
    """

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.prose: list[str] = []
        self.blocks: list[str] = []
        self.comments: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in ("br", "img", "hr", "input", "meta", "link", "wbr"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            del self.stack[len(self.stack) - 1 - self.stack[::-1].index(tag) :]

    def handle_data(self, data):
        if "script" in self.stack or "style" in self.stack:
            return
        if "pre" in self.stack:
            self.blocks.append(data)
        elif "code" not in self.stack:
            self.prose.append(data)

    def handle_comment(self, data):
        self.comments.append(data)


def unexpanded_markers(html: str) -> list[str]:
    """Placeholders and snippet includes the build left in a page's HTML,
    ignoring those that inline code shows as syntax."""
    page = PageText()
    page.feed(html)
    prose, blocks = "".join(page.prose), "".join(page.blocks)
    found = [f"<!--{c}-->" for c in page.comments if COMMENT_PLACEHOLDER_RE.match(c)]
    found += [f"text {m.group(0)!r}" for m in PLACEHOLDER_RE.finditer(prose)]
    found += [
        f"{where} {line.strip()!r}"
        for where, text in (("text", prose), ("code block", blocks))
        for line in text.splitlines()
        if INCLUDE_RE.search(line)
    ]
    return found


def site_pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if p.name != "404.html")


def test_built_pages_hold_no_unexpanded_markers(built_site):
    leftovers = {
        page.relative_to(built_site).as_posix(): found
        for page in site_pages(built_site)
        if (found := unexpanded_markers(page.read_text(encoding="utf-8")))
    }
    assert not leftovers, leftovers


@pytest.mark.parametrize(
    "html, expected",
    [
        ("<p>x <!-- insert: a.py:f() --> y</p>", 1),
        ("<p>See <!-- roadmap: path Course --></p>", 1),
        ("<p>&lt;!-- insert: a.py:f() --&gt;</p>", 1),
        ('<pre><code>--8&lt;-- "snippets/a.py:body"</code></pre>', 1),
        (
            '<pre><span class="o">--</span><span class="mi">8</span>'
            '<span class="o">&lt;--</span> <span class="s2">"a.py"</span></pre>',
            1,
        ),
        ("<p>Mark it with <code># --8&lt;-- [start:name]</code>.</p>", 0),
        ("<p><code>&lt;!-- insert: a.py:f() --&gt;</code></p>", 0),
        ("<pre><code>&lt;!-- insert: a.py:f() --&gt;</code></pre>", 0),
        ("<p>An ordinary comment<!-- no placeholder --></p>", 0),
    ],
    ids=[
        "raw-insert",
        "raw-roadmap",
        "escaped-insert-in-prose",
        "include-in-block",
        "include-in-highlighted-block",
        "include-syntax-in-inline-code",
        "insert-syntax-in-inline-code",
        "insert-shown-in-a-markdown-block",
        "other-comment",
    ],
)
def test_the_marker_check_tells_leftovers_from_shown_syntax(html, expected):
    assert len(unexpanded_markers(html)) == expected


def built_page_path(src: str) -> str:
    """Where a page at docs/<src> lands in the site (directory URLs)."""
    stem = posixpath.splitext(src)[0]
    if posixpath.basename(stem) == "index":
        return stem.removesuffix("index") + "index.html"
    return f"{stem}/index.html"


def test_every_page_the_roadmap_counts_as_built_is_in_the_site(built_site):
    expected = [built_page_path(e["path"]) for e in built_entries(load_roadmap(), DOCS)]
    assert expected, "the roadmap lists no existing page"
    missing = [path for path in expected if not (built_site / path).is_file()]
    assert not missing, f"pages the roadmap lists as existing, not built: {missing}"
    assert len(site_pages(built_site)) >= len(expected)


def test_built_page_paths_follow_directory_urls():
    assert built_page_path("index.md") == "index.html"
    assert built_page_path("kernels/index.md") == "kernels/index.html"
    assert built_page_path("start/lm.ipynb") == "start/lm/index.html"
