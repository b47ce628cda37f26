"""scripts/site/glossary.py: terms sorted, each linked to its lesson when the
lesson is built and named as planned when it is not."""

from __future__ import annotations

import pytest
from properdocs.exceptions import PluginError

from scripts.site.glossary import expand_glossary, load_terms, render_glossary
from scripts.site.roadmap import iter_entries, load_roadmap

ROADMAP = {
    "sections": [
        {
            "title": "Course",
            "items": [
                {"title": "Built", "path": "c/built.md", "access": "free"},
                {"title": "Planned", "path": "c/planned.md", "access": "free"},
            ],
        }
    ]
}


@pytest.fixture
def docs(tmp_path):
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "built.md").write_text("# b\n", encoding="utf-8")
    return tmp_path


def test_built_lessons_are_linked_and_planned_ones_named(docs):
    terms = [
        {"term": "Zeta", "lesson": "c/planned.md", "definition": "Last."},
        {
            "term": "alpha",
            "lesson": "c/built.md",
            "also": ["c/planned.md"],
            "definition": "First.",
        },
    ]
    text = render_glossary(terms, ROADMAP, docs, "ref/glossary.md")
    alpha, zeta = text.strip().split("\n\n## ")
    assert alpha.startswith("## alpha\n\nFirst. Taught in [Built](../c/built.md)")
    assert "see also *Planned*" in alpha
    assert zeta.startswith("Zeta\n\nLast. Taught in *Planned*")
    assert "access-planned" in zeta


def test_a_term_pointing_off_the_roadmap_is_refused(docs):
    terms = [{"term": "x", "lesson": "nowhere.md", "definition": "d"}]
    with pytest.raises(PluginError, match="not a page in docs/roadmap.yml"):
        render_glossary(terms, ROADMAP, docs, "g.md")


def test_the_real_glossary_is_sorted_and_points_at_roadmap_pages():
    terms = load_terms()
    names = [t["term"].casefold() for t in terms]
    assert names == sorted(names) and len(set(names)) == len(names)
    paths = {e["path"] for e in iter_entries(load_roadmap())}
    for term in terms:
        assert term["lesson"] in paths, term["term"]
        assert set(term.get("also", [])) <= paths, term["term"]
        assert 10 < len(term["definition"]) < 400, term["term"]


def test_only_the_placeholder_outside_code_is_expanded(docs):
    page = "# G\n\n<!-- glossary -->\n\n`<!-- glossary -->`\n"
    out = expand_glossary(page, "glossary.md", load_roadmap(), docs)
    assert out.count("<!-- glossary -->") == 1 and "## Amdahl's law" in out
    assert expand_glossary("no placeholder", "x.md", ROADMAP, docs) == "no placeholder"
