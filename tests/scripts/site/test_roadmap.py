"""scripts/site/roadmap.py: the nav and the tables built from a roadmap, with
only the pages whose files exist linked."""

from __future__ import annotations

import re

import pytest
from properdocs.exceptions import PluginError

from scripts.site.roadmap import (
    BuiltPage,
    build_nav,
    built_entries,
    built_pages_table,
    count_items,
    expand_roadmap,
    load_roadmap,
)

ROADMAP = """\
sections:
  - title: Home
    path: index.md
    kind: reference
    access: free
  - title: Course
    path: course/index.md
    kind: course
    access: free
    modules:
      - title: First module
        items:
          - {title: Built lesson, path: course/built.md, kind: lesson,
             access: free, summary: Exists.}
          - {title: Planned lesson, path: course/planned.md, kind: lesson,
             access: premium, summary: Not yet.}
      - title: Second module
        items:
          - {title: A project, path: projects/p.md, kind: project,
             access: premium, summary: Elsewhere.}
  - title: Projects
    path: projects/index.md
    kind: reference
    access: free
    collects: project
"""


@pytest.fixture
def site(tmp_path):
    roadmap_path = tmp_path / "roadmap.yml"
    roadmap_path.write_text(ROADMAP, encoding="utf-8")
    docs = tmp_path / "docs"
    for rel in ("index.md", "course/index.md", "course/built.md", "projects/p.md"):
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text("# x\n", encoding="utf-8")
    return load_roadmap(roadmap_path), docs


def test_nav_follows_the_roadmap_with_projects_inside_their_course(site):
    roadmap, docs = site
    assert build_nav(roadmap, docs) == [
        {"Home": "index.md"},
        {
            "Course": [
                "course/index.md",
                {"First module": [{"Built lesson": "course/built.md"}]},
                {"Second module": [{"A project": "projects/p.md"}]},
            ]
        },
    ]
    (docs / "projects" / "index.md").write_text("# Projects\n", encoding="utf-8")
    # The projects index lists the projects on its page, not again in the nav.
    assert build_nav(roadmap, docs)[-1] == {"Projects": "projects/index.md"}


def test_built_entries_are_those_whose_files_exist(site):
    roadmap, docs = site
    assert [e["path"] for e in built_entries(roadmap, docs)] == [
        "index.md",
        "course/index.md",
        "course/built.md",
        "projects/p.md",
    ]


def test_placeholders_become_tables_and_code_keeps_them(site):
    roadmap, docs = site
    page = (
        "<!-- roadmap: count Course items --> items\n"
        "<!-- roadmap: path Course -->\n"
        "`<!-- roadmap: path Course -->`\n"
        "```\n<!-- roadmap: path Course -->\n```"
    )
    out = expand_roadmap(page, "index.md", roadmap, docs, [])
    assert out.startswith("3 items\n")
    assert "1. [Built lesson](course/built.md)" in out
    assert "2. Planned lesson" in out and "access-planned" in out
    assert out.count("<!-- roadmap: path Course -->") == 2
    assert count_items(roadmap, "Course") == {"modules": 2, "items": 3}


def test_built_pages_table_links_relative_to_the_page():
    pages = [BuiltPage("course/built.md", "Built", "premium")]
    table = built_pages_table(pages, "course/index.md")
    assert "| [Built](built.md) | course |" in table
    assert "access-premium" in table


def test_built_pages_table_follows_the_path_without_its_own_page(site):
    roadmap, _ = site
    pages = [
        BuiltPage("projects/p.md", "A project", "premium"),
        BuiltPage("index.md", "Home", "free"),
        BuiltPage("course/built.md", "Built lesson", "free"),
        BuiltPage("course/index.md", "Course", "free"),
    ]
    table = built_pages_table(pages, "index.md", roadmap)
    links = re.findall(r"\[([^]]+)\]", table)
    assert links == ["Course", "Built lesson", "A project"]
    assert "| [A project](projects/p.md) | Course |" in table


def test_start_next_and_link_placeholders(site):
    roadmap, docs = site
    page = "<!-- roadmap: start Course -->\n<!-- roadmap: link course/planned.md -->"
    start, planned = expand_roadmap(page, "index.md", roadmap, docs, []).split("\n")
    assert start.startswith("[Built lesson](course/built.md) <span")
    assert planned.startswith("*Planned lesson* <span")

    def after(src: str) -> str:
        return expand_roadmap("<!-- roadmap: next -->", src, roadmap, docs, [])

    assert after("course/index.md") == "Next on the path: [Built lesson](built.md)."
    assert after("course/built.md").startswith("Next on the path: *Planned lesson*")
    assert after("course/built.md").endswith("go on to [A project](../projects/p.md).")
    assert after("projects/index.md") == "This is the last page on the path."
    with pytest.raises(PluginError, match="not on docs/roadmap.yml"):
        after("x.md")


def test_next_with_a_path_is_refused_naming_the_link_to_write(site):
    # "next PATH" once read as "link PATH" and mislinked with no warning.
    roadmap, docs = site
    with pytest.raises(PluginError) as caught:
        page = "<!-- roadmap: next course/built.md -->"
        expand_roadmap(page, "course/index.md", roadmap, docs, [])
    assert str(caught.value) == (
        "docs/course/index.md: 'roadmap: next' takes no path: it names the page "
        "after this one; to link 'course/built.md', write "
        "<!-- roadmap: link course/built.md -->"
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("sections: 3\n", "top-level 'sections' list"),
        ("sections:\n  - {title: A, items: [{title: B, path: b.md}]}\n", "lacks"),
        ("sections:\n  - {title: A, path: a.md, access: paid}\n", "has access"),
        (
            "sections:\n  - {title: A, path: a.md, kind: lesson, access: free,"
            " sumary: typo}\n",
            r"sections\[0\] \('A'\): has an unknown field .*'sumary'",
        ),
        (
            "sections:\n  - title: A\n    items:\n      - {title: B, path: b.md,"
            " kind: lecture, access: free, summary: S}\n",
            r"sections\[0\]\.items\[0\] \('B'\): has kind 'lecture'; use one of",
        ),
    ],
    ids=["no-sections", "no-access", "bad-access", "unknown-field", "bad-kind"],
)
def test_a_malformed_roadmap_is_refused(tmp_path, text, message):
    path = tmp_path / "roadmap.yml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PluginError, match=message):
        load_roadmap(path)


def test_an_unknown_placeholder_names_the_page(site):
    roadmap, docs = site
    with pytest.raises(PluginError, match=r"docs/index.md: unknown roadmap"):
        expand_roadmap("<!-- roadmap: nothing -->", "index.md", roadmap, docs, [])
