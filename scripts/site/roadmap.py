"""The learning path in ``docs/roadmap.yml``: the navigation, the access
levels, and the roadmap tables that ``<!-- roadmap: WHAT ARGS -->``
placeholders on the home page and the course overviews turn into.

A page counts as built once its file exists under ``docs/``; until then the
roadmap lists it as planned, without a link. The file is checked against
``scripts/site/roadmap.schema.json`` (JSON Schema) when it is loaded.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import jsonschema
import yaml
from properdocs.exceptions import PluginError

from evidence.tables import markdown_table
from scripts.site.fences import substitute_in_prose

ROOT = Path(__file__).resolve().parents[2]
ROADMAP_PATH = ROOT / "docs" / "roadmap.yml"
ROADMAP_SCHEMA_PATH = Path(__file__).with_name("roadmap.schema.json")
ACCESS_LEVELS = ("free", "premium")
ROADMAP_PLACEHOLDER_RE = re.compile(
    r"<!--\s*roadmap:\s*(?P<what>[\w-]+)(?:\s+(?P<arg>[^>]*?))?\s*-->"
)


class BuiltPage(NamedTuple):
    """What the table of built pages shows about one page."""

    src_uri: str
    title: str
    access: str | None


def roadmap_schema() -> dict:
    return json.loads(ROADMAP_SCHEMA_PATH.read_text(encoding="utf-8"))


def _where(roadmap: Any, path: Iterable) -> str:
    """`sections[2].modules[0].items[3] ('Title')` for an error's location."""
    parts, node, title = [], roadmap, None
    for step in path:
        parts.append(f"[{step}]" if isinstance(step, int) else f".{step}")
        node = node[step] if isinstance(node, (dict, list)) else None
        if isinstance(node, dict) and isinstance(node.get("title"), str):
            title = node["title"]
    where = "".join(parts).lstrip(".") or "the top level"
    return f"{where} ({title!r})" if title else where


def _reason(error) -> str:
    """The schema error in the roadmap's words."""
    field = error.path[-1] if error.path and isinstance(error.path[-1], str) else None
    if error.validator in ("required", "dependentRequired"):
        missing = error.message.split("'")[1]
        return f"lacks {missing!r}"
    if error.validator == "enum":
        choices = ", ".join(map(str, error.validator_value))
        return f"has {field} {error.instance!r}; use one of {choices}"
    if error.validator == "additionalProperties":
        return f"has an unknown field ({error.message})"
    if list(error.path) == ["sections"] and error.validator == "type":
        return "expected a top-level 'sections' list"
    return f"field {field!r}: {error.message}" if field else error.message


def schema_problem(roadmap: Any) -> str | None:
    """One line naming the entry and the field that break the schema (the
    most specific error when there are several), None when it is valid."""
    validator = jsonschema.Draft202012Validator(roadmap_schema())
    errors = sorted(
        validator.iter_errors(roadmap),
        key=lambda e: (-len(e.path), [str(step) for step in e.path]),
    )
    if not errors:
        return None
    error = errors[0]
    path = list(error.path)
    entry = path[:-1] if path and isinstance(path[-1], str) else path
    return f"{_where(roadmap, entry)}: {_reason(error)}"


def load_roadmap(path: Path = ROADMAP_PATH) -> dict:
    """The parsed roadmap, checked against scripts/site/roadmap.schema.json;
    a malformed entry fails with one line naming the entry and the field."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PluginError(f"{path}: cannot read the roadmap: {exc}") from exc
    problem = schema_problem(data)
    if problem:
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        raise PluginError(f"{shown}: {problem}")
    return data


def iter_entries(roadmap: dict) -> Iterator[dict]:
    """Every page-like entry (sections with a page, modules' items, items)."""
    for section in roadmap["sections"]:
        if "path" in section and "access" in section:
            yield section
        yield from section.get("items", [])
        for module in section.get("modules", []):
            yield from module.get("items", [])


def course_items(roadmap: dict, course_title: str) -> list[tuple[str, dict]]:
    """(module title, item) pairs of one course, in path order."""
    for section in roadmap["sections"]:
        if section["title"] == course_title:
            return [
                (module["title"], item)
                for module in section.get("modules", [])
                for item in module.get("items", [])
            ]
    raise KeyError(course_title)


def page_exists(docs_dir: Path, rel_path: str) -> bool:
    return (docs_dir / rel_path).is_file()


def built_entries(roadmap: dict, docs_dir: Path) -> list[dict]:
    """The roadmap's entries whose page file exists: the pages a build makes."""
    return [e for e in iter_entries(roadmap) if page_exists(docs_dir, e["path"])]


def build_nav(roadmap: dict, docs_dir: Path) -> list:
    """The site's nav: the roadmap's tree in its order, keeping only pages
    that exist, so that the sidebar and the footer's Previous and Next follow
    the path.

    A project sits where the path reaches it, inside its course module; a
    section that `collects` a kind (the projects index) lists those pages on
    its own page, not a second time in the nav (a page twice in the nav
    would break Previous and Next).
    """
    nav: list = []
    for section in roadmap["sections"]:
        path = section.get("path")
        name = section.get("tab", section["title"])  # the top bar's short name
        has_children = "items" in section or "modules" in section
        if path and not has_children:
            if page_exists(docs_dir, path):
                nav.append({name: path})
            continue
        children: list = []
        if path and page_exists(docs_dir, path):
            children.append(path)
        for item in section.get("items", []):
            if page_exists(docs_dir, item["path"]):
                children.append({item["title"]: item["path"]})
        for module in section.get("modules", []):
            built = [
                {item["title"]: item["path"]}
                for item in module.get("items", [])
                if page_exists(docs_dir, item["path"])
            ]
            if built:
                children.append({module["title"]: built})
        if children:
            nav.append({name: children})
    return nav


# --------------------------------------------------------------------------
# Badges
# --------------------------------------------------------------------------


#: What each label's tooltip says: a label, never a lock.
ACCESS_TITLES = {
    "free": "Free: the entry path. Every page is open to read",
    "premium": "Premium: deeper material, a label only. Every page is open to read",
}


def access_badge(level: str) -> str:
    label = {"free": "Free", "premium": "Premium"}[level]
    return (
        f'<span class="access-badge access-{level}" '
        f'title="{ACCESS_TITLES[level]}">{label}</span>'
    )


ACCESS_BADGE_RE = re.compile(
    r'<span class="access-badge access-(?:free|premium)"[^>]*>\w+</span>'
)


def link_access_badges(output: str, access_page: str) -> str:
    """Every access badge in a built page (the tables' and lists') becomes a
    link to the page that says what the labels mean; run before the
    heading's own linked badge is added."""
    return ACCESS_BADGE_RE.sub(
        lambda m: f'<a class="access-link" href="{access_page}">{m.group(0)}</a>',
        output,
    )


def planned_badge() -> str:
    return (
        '<span class="access-badge access-planned" title="Not built yet">Planned</span>'
    )


# --------------------------------------------------------------------------
# Tables and lists for the home page and course overviews
# --------------------------------------------------------------------------


def _link(from_src: str, to_src: str, title: str) -> str:
    rel = posixpath.relpath(to_src, posixpath.dirname(from_src) or ".")
    return f"[{title}]({rel})"


def render_path(roadmap: dict, docs_dir: Path, from_src: str, course: str) -> str:
    """The ordered path through one course: modules, items, built or planned."""
    lines: list[str] = []
    number = 0
    current = None
    for module_title, item in course_items(roadmap, course):
        if module_title != current:
            current = module_title
            lines.append("")
            lines.append(f"**{module_title}**")
            lines.append("")
        number += 1
        built = page_exists(docs_dir, item["path"])
        name = _link(from_src, item["path"], item["title"]) if built else item["title"]
        status = access_badge(item["access"]) if built else planned_badge()
        lines.append(f"{number}. {name} {status} — {item.get('summary', '')}")
    return "\n".join(lines).strip() + "\n"


def section_of(roadmap: dict) -> dict[str, str]:
    """{path: title of the roadmap section it sits in}, in path order."""
    where: dict[str, str] = {}
    for section in roadmap["sections"]:
        if section.get("path"):
            where[section["path"]] = section["title"]
        for item in section.get("items", []):
            where[item["path"]] = section["title"]
        for module in section.get("modules", []):
            for item in module.get("items", []):
                where[item["path"]] = section["title"]
    return where


# The cells below are links and badges this project writes: not escaped.
def built_pages_table(
    pages: list[BuiltPage], from_src: str, roadmap: dict | None = None
) -> str:
    """Every built page but the one showing the table, in the path's order
    (pages the roadmap does not list come last, by file path)."""
    sections = section_of(roadmap) if roadmap else {}
    order = {path: index for index, path in enumerate(sections)}
    rows = []
    for page in sorted(
        pages, key=lambda p: (order.get(p.src_uri, len(order)), p.src_uri)
    ):
        if page.src_uri == from_src:
            continue
        section = sections.get(page.src_uri) or page.src_uri.partition("/")[0]
        level = page.access or "?"
        badge = access_badge(level) if level in ACCESS_LEVELS else level
        rows.append((_link(from_src, page.src_uri, page.title), section, badge))
    header = ["Page", "Section", "Access"]
    return markdown_table(header, rows, escape=False) + "\n"


def planned_pages_table(roadmap: dict, docs_dir: Path) -> str:
    rows = [
        (f"{entry['title']} {planned_badge()}", entry.get("kind", ""), entry["access"])
        for entry in iter_entries(roadmap)
        if not page_exists(docs_dir, entry["path"])
    ]
    if not rows:  # nothing planned: no heading over an empty table
        return ""
    header = ["Planned page", "Kind", "Access when built"]
    return (
        "## Planned, not built yet\n\nThese are on the roadmap but have no page "
        "yet. They are listed so you can see where the path goes; nothing here "
        "links to a placeholder.\n\n"
        + markdown_table(header, rows, escape=False)
        + "\n"
    )


def count_items(roadmap: dict, course: str) -> dict[str, int]:
    items = course_items(roadmap, course)
    modules = {module for module, _ in items}
    return {"modules": len(modules), "items": len(items)}


def _entry_line(entry: dict, docs_dir: Path, src: str) -> str:
    built = page_exists(docs_dir, entry["path"])
    name = _link(src, entry["path"], entry["title"]) if built else entry["title"]
    badge = access_badge(entry["access"]) if built else planned_badge()
    return f"- {name} {badge} — {entry.get('summary', '')}"


def start_link(roadmap: dict, docs_dir: Path, src: str, course: str) -> str:
    """A link to the first built page of a course's path (where a learner
    can start today), the course overview while no lesson is built, or the
    course's name marked planned while it has no page at all."""
    for _, item in course_items(roadmap, course):
        if page_exists(docs_dir, item["path"]):
            link = _link(src, item["path"], item["title"])
            return f"{link} {access_badge(item['access'])}"
    for section in roadmap["sections"]:
        if section["title"] == course and page_exists(docs_dir, section["path"]):
            return _link(src, section["path"], section["title"])
    return f"*{course}* {planned_badge()}"


def page_link(roadmap: dict, docs_dir: Path, src: str, path: str) -> str:
    """A link to a roadmap page if it is built, else its title marked planned."""
    for entry in iter_entries(roadmap):
        if entry["path"] == path:
            if page_exists(docs_dir, path):
                return _link(src, path, entry["title"])
            return f"*{entry['title']}* {planned_badge()}"
    raise PluginError(f"docs/{src}: {path!r} is not on docs/roadmap.yml's path")


def next_on_path(roadmap: dict, docs_dir: Path, src: str, after: str) -> str:
    """The page after `after` on the path: a link if it is built; if it is
    planned, its title marked so, then the next built page to go to now."""
    paths = [entry["path"] for entry in iter_entries(roadmap)]
    if after not in paths:
        raise PluginError(f"docs/{src}: {after!r} is not on docs/roadmap.yml's path")
    entries = list(iter_entries(roadmap))[paths.index(after) + 1 :]
    if not entries:
        return "This is the last page on the path."
    first = entries[0]
    if page_exists(docs_dir, first["path"]):
        return f"Next on the path: {_link(src, first['path'], first['title'])}."
    built = next((e for e in entries if page_exists(docs_dir, e["path"])), None)
    text = f"Next on the path: *{first['title']}* {planned_badge()}."
    if built:
        link = _link(src, built["path"], built["title"])
        text += f" Until it is written, go on to {link}."
    return text


def _collected_list(roadmap: dict, docs_dir: Path, src: str, kind: str) -> str:
    return "\n".join(
        _entry_line(entry, docs_dir, src)
        for entry in iter_entries(roadmap)
        if entry.get("kind") == kind
    )


def _section_list(roadmap: dict, docs_dir: Path, src: str, title: str) -> str:
    for section in roadmap["sections"]:
        if section["title"] == title:
            entries = list(section.get("items", []))
            for module in section.get("modules", []):
                entries.extend(module.get("items", []))
            return "\n".join(_entry_line(e, docs_dir, src) for e in entries)
    raise PluginError(f"docs/{src}: no roadmap section titled {title!r}")


def access_list(roadmap: dict, docs_dir: Path, src: str, level: str) -> str:
    """Every built page at one access level, one line per roadmap section:
    the section's name, then its pages' links in path order."""
    if level not in ACCESS_LEVELS:
        raise PluginError(
            f"docs/{src}: roadmap access {level!r}: not one of {ACCESS_LEVELS}"
        )
    lines = []
    for section in roadmap["sections"]:
        entries = [section] if "path" in section and "access" in section else []
        entries += list(section.get("items", []))
        for module in section.get("modules", []):
            entries += list(module.get("items", []))
        links = [
            _link(src, e["path"], e["title"])
            for e in entries
            if e["access"] == level
            and page_exists(docs_dir, e["path"])
            and e["path"] != src
        ]
        if links:
            lines.append(f"- *{section['title']}* ({len(links)}): {', '.join(links)}")
    return "\n".join(lines) + "\n"


def expand_roadmap(
    markdown: str,
    src: str,
    roadmap: dict,
    docs_dir: Path,
    built: list[BuiltPage],
) -> str:
    """Replace every `<!-- roadmap: WHAT ARGS -->` outside code on page `src`."""

    def replace(match: re.Match) -> str:
        what, arg = match["what"], (match["arg"] or "").strip()
        if what == "path":
            return render_path(roadmap, docs_dir, src, arg)
        if what == "built":
            return built_pages_table(built, src, roadmap)
        if what == "planned":
            return planned_pages_table(roadmap, docs_dir)
        if what == "count":
            course, _, field = arg.rpartition(" ")
            return str(count_items(roadmap, course)[field])
        if what == "projects":
            return _collected_list(roadmap, docs_dir, src, "project")
        if what == "items":
            return _section_list(roadmap, docs_dir, src, arg)
        if what == "start":
            return start_link(roadmap, docs_dir, src, arg)
        if what == "link":
            return page_link(roadmap, docs_dir, src, arg)
        if what == "access":
            return access_list(roadmap, docs_dir, src, arg)
        if what == "next":
            if arg:
                raise PluginError(
                    f"docs/{src}: 'roadmap: next' takes no path: it names the "
                    f"page after this one; to link {arg!r}, write "
                    f"<!-- roadmap: link {arg} -->"
                )
            return next_on_path(roadmap, docs_dir, src, src)
        raise PluginError(f"docs/{src}: unknown roadmap placeholder {what!r}")

    return substitute_in_prose(ROADMAP_PLACEHOLDER_RE, replace, markdown)
