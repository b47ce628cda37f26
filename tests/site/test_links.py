"""Internal links and anchors in the built HTML resolve, and the site asks
nothing of any other host."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

# Readers may follow links out, and a canonical <link> only names the page;
# anything the browser would fetch (scripts, styles, images, frames) must not
# leave the site.
LOADING_LINK_RELS = {"stylesheet", "icon", "preload", "modulepreload", "manifest"}


class LinkParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.refs: list[tuple[str, bool, str]] = []  # (tag, loads it?, value)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key):
                self.ids.add(attrs[key])
        rels = set((attrs.get("rel") or "").split())
        loads = tag in ("script", "img", "iframe", "source", "video", "audio") or (
            tag == "link" and bool(rels & LOADING_LINK_RELS)
        )
        if tag == "link" and "canonical" in rels:
            return
        for key in ("href", "src"):
            if attrs.get(key):
                self.refs.append((tag, loads, attrs[key]))


def parse(path: Path) -> LinkParser:
    parser = LinkParser()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return parser


def resolve(site: Path, page: Path, ref: str) -> tuple[Path, str]:
    page_url = "/" + page.relative_to(site).as_posix()
    url = urlparse(urljoin(page_url, ref))
    target = site / unquote(url.path).lstrip("/")
    if url.path.endswith("/") or target.is_dir():
        target = target / "index.html"
    return target, url.fragment


def test_internal_links_and_anchors_resolve(built_site):
    parsed = {page: parse(page) for page in built_site.rglob("*.html")}
    broken = []
    for page, parser in parsed.items():
        if page.name == "404.html":
            continue  # served at any missing path, so it links from the root
        for _tag, loads, ref in parser.refs:
            url = urlparse(ref)
            if url.scheme in ("mailto", "data", "javascript") or ref.startswith("#!"):
                continue
            if url.scheme or url.netloc:
                if loads:
                    broken.append(f"{page}: loads external {ref}")
                continue
            target, fragment = resolve(built_site, page, ref)
            if not target.exists():
                broken.append(f"{page.relative_to(built_site)}: {ref} -> missing")
                continue
            if fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else parse(target).ids
                if unquote(fragment) not in ids:
                    broken.append(f"{page.relative_to(built_site)}: {ref} -> no anchor")
    assert not broken, "\n".join(broken[:40])


def test_the_link_checker_catches_a_broken_link(tmp_path):
    (tmp_path / "index.html").write_text(
        '<a href="missing/">x</a><a href="#nowhere">y</a><p id="here"></p>'
    )
    parser = parse(tmp_path / "index.html")
    target, _ = resolve(tmp_path, tmp_path / "index.html", "missing/")
    assert not target.exists()
    assert "nowhere" not in parser.ids and "here" in parser.ids
