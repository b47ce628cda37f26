"""A learner can follow the path: the footer's Next runs through the built
pages in docs/roadmap.yml's order, the home page says who the site is for and
where to enter before anything else, and lists every page in path order."""

from __future__ import annotations

import re

from scripts.site.roadmap import built_entries, load_roadmap
from tests.site.sitebuild import ROOT

NEXT_RE = re.compile(
    r'<a href="(?P<href>[^"]+)" class="md-footer__link md-footer__link--next"'
)
DOCS = ROOT / "docs"


def site_folder(path: str) -> str:
    """docs path -> the built page's folder (use_directory_urls)."""
    stem = re.sub(r"\.(md|ipynb)$", "", path)
    if stem == "index":
        return ""
    return stem.removesuffix("/index")


def test_next_links_follow_the_roadmap(built_site):
    expected = [site_folder(e["path"]) for e in built_entries(load_roadmap(), DOCS)]
    walked, folder = [], ""
    for _ in range(len(expected) + 1):
        walked.append(folder)
        page = built_site / folder / "index.html"
        match = NEXT_RE.search(page.read_text(encoding="utf-8"))
        if match is None:
            break
        target = (page.parent / match["href"]).resolve()
        folder = target.relative_to(built_site.resolve()).as_posix()
        folder = "" if folder == "." else folder
    assert walked == expected


def test_course_projects_sit_inside_their_course_in_the_sidebar(built_site):
    html = (built_site / "index.html").read_text(encoding="utf-8")
    order = re.findall(r'<a href="([^"#]+)" class="md-nav__link', html)
    course, projects = order.index("kernels/"), order.index("projects/")
    for entry in built_entries(load_roadmap(), DOCS):
        if entry.get("kind") == "project" and entry["path"].startswith("projects/"):
            where = order.index(site_folder(entry["path"]) + "/")
            assert course < where < projects, entry["path"]


def visible_text(html: str) -> str:
    article = html[html.index("<article") : html.index("</article>")]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", article))


def test_home_page_opens_with_who_it_is_for_and_where_to_enter(built_site):
    html = (built_site / "index.html").read_text(encoding="utf-8")
    text = visible_text(html)
    first_h2 = re.search(r'<h2 id="([^"]+)"', html)[1]
    assert first_h2 == "where-to-enter"
    assert text.index("This site is for") < text.index("Where to enter")
    assert text.index("Where to enter") < text.index("Five kinds of evidence")
    # Every entry point links to a page that exists today.
    section = html[html.index('id="where-to-enter"') :]
    section = section[: section.index("<h2", 10)]
    links = re.findall(r'href="([^"#]+)"', section)
    assert len(links) >= 4
    for href in links:
        assert (built_site / href / "index.html").is_file() or (
            built_site / href
        ).is_file(), href
    # No literal list markers rendered as text (a list pasted inside a bullet).
    assert not re.search(r"<li>[^<]*?: - ", html)
    assert " - [" not in text


def test_every_page_table_follows_the_path_and_omits_the_home_page(built_site):
    html = (built_site / "index.html").read_text(encoding="utf-8")
    table = html[html.index('id="every-page-on-the-site"') :]
    table = table[table.index("<table") : table.index("</table>")]
    hrefs = re.findall(r'<a href="([^"]+)"', table)
    expected = [
        site_folder(e["path"]) + "/"
        for e in built_entries(load_roadmap(), DOCS)
        if e["path"] != "index.md"
    ]
    assert hrefs == expected


def test_the_notebook_page_offers_its_download(built_site):
    page = built_site / "start" / "tiny-language-model"
    html = (page / "index.html").read_text(encoding="utf-8")
    link = re.search(r'<a [^>]*href="tiny-language-model\.ipynb"[^>]*>', html)
    assert link and " download" in link[0]
    assert (page / "tiny-language-model.ipynb").is_file()
