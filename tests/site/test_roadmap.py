"""The roadmap, the pages and the home page agree."""

from __future__ import annotations

import json
import re

from properdocs.utils.meta import get_data

from scripts.site.roadmap import course_items, iter_entries, load_roadmap
from tests.site.sitebuild import ROOT

DOCS = ROOT / "docs"
COURSE = "Kernels and the Machine"


def front_matter_access(path):
    if path.suffix == ".ipynb":
        return json.loads(path.read_text(encoding="utf-8"))["metadata"].get("access")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---"), f"{path} has no front matter"
    return get_data(text)[1].get("access")


def test_course_has_seven_modules_and_twenty_one_lessons_and_projects():
    # The promise is about the core path; an "Extension:" module comes after it.
    items = course_items(load_roadmap(), COURSE)
    core = [(m, i) for m, i in items if not m.startswith("Extension:")]
    assert len({module for module, _ in core}) == 7
    assert len(core) == 21
    assert items[: len(core)] == core  # extensions follow the core path


def test_every_page_is_on_the_roadmap_and_agrees_on_access():
    entries = {e["path"]: e for e in iter_entries(load_roadmap())}
    pages = [p for p in DOCS.rglob("*") if p.suffix in (".md", ".ipynb")]
    assert pages
    for page in pages:
        rel = page.relative_to(DOCS).as_posix()
        if ".ipynb_checkpoints" in rel:
            continue
        assert rel in entries, f"docs/{rel} is not in docs/roadmap.yml"
        assert front_matter_access(page) == entries[rel]["access"], rel


def test_home_page_counts_come_from_the_roadmap(built_site):
    html = (built_site / "index.html").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", html)
    assert re.search(r"course of\s+8 modules and\s+26 lessons and projects", text)


def test_home_page_lists_planned_pages_apart_and_unlinked(built_site):
    html = (built_site / "index.html").read_text(encoding="utf-8")
    planned_section = html[html.index('id="planned-not-built-yet"') :]
    for entry in iter_entries(load_roadmap()):
        if not (DOCS / entry["path"]).exists():
            assert (
                entry["title"].replace('"', "") in planned_section.replace("&quot;", "")
                or entry["title"] in planned_section
            )
    # Built pages carry an access badge in the generated table.
    assert 'class="access-badge access-free"' in html
    assert 'class="access-badge access-premium"' in html
