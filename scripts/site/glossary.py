"""The glossary page: ``<!-- glossary -->`` becomes one short section per term
in ``scripts/site/glossary.yml``, alphabetical, each linked to the lesson that
teaches it. A lesson not built yet is named with its roadmap title and marked
planned, so the strict build never links to a missing page.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

import yaml
from properdocs.exceptions import PluginError

from scripts.site.fences import substitute_in_prose
from scripts.site.roadmap import iter_entries, page_exists, planned_badge

GLOSSARY_PATH = Path(__file__).with_name("glossary.yml")
GLOSSARY_RE = re.compile(r"<!--\s*glossary\s*-->")


def load_terms(path: Path = GLOSSARY_PATH) -> list[dict]:
    """The terms, alphabetical (case-insensitive), each checked for fields."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    terms = data.get("terms") if isinstance(data, dict) else None
    if not isinstance(terms, list):
        raise PluginError(f"{path}: expected a top-level 'terms' list")
    for term in terms:
        for field in ("term", "lesson", "definition"):
            if not term.get(field):
                raise PluginError(f"{path}: entry {term!r} lacks '{field}'")
    return sorted(terms, key=lambda t: t["term"].casefold())


def page_reference(path: str, titles: dict[str, str], docs_dir: Path, src: str):
    """A link to a built page, or its title marked planned."""
    if path not in titles:
        raise PluginError(f"glossary: {path!r} is not a page in docs/roadmap.yml")
    if page_exists(docs_dir, path):
        rel = posixpath.relpath(path, posixpath.dirname(src) or ".")
        return f"[{titles[path]}]({rel})"
    return f"*{titles[path]}* {planned_badge()}"


def render_glossary(terms: list[dict], roadmap: dict, docs_dir: Path, src: str) -> str:
    titles = {entry["path"]: entry["title"] for entry in iter_entries(roadmap)}
    blocks = []
    for term in sorted(terms, key=lambda t: t["term"].casefold()):
        where = [term["lesson"], *term.get("also", [])]
        refs = [page_reference(p, titles, docs_dir, src) for p in where]
        taught = "Taught in " + "; see also ".join(
            [refs[0], ", ".join(refs[1:])] if len(refs) > 1 else refs
        )
        blocks.append(f"## {term['term']}\n\n{term['definition'].strip()} {taught}.")
    return "\n\n".join(blocks) + "\n"


def expand_glossary(markdown: str, src: str, roadmap: dict, docs_dir: Path) -> str:
    if not GLOSSARY_RE.search(markdown):
        return markdown
    text = render_glossary(load_terms(), roadmap, docs_dir, src)
    return substitute_in_prose(GLOSSARY_RE, lambda _: text, markdown)
