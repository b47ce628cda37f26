"""MkDocs build hooks: the roadmap, access levels, computed values, sources.

What they do, in build order:

- ``on_config``: reads ``docs/roadmap.yml`` and generates the navigation from
  it, keeping only pages whose files exist (the rest is "planned").
- ``on_files``: publishes every file under ``snippets/`` and ``kernels/`` at
  ``src/<path>`` so each code block can link to the whole tested file.
- ``on_page_markdown``: fails the build when a page lacks ``access: free`` or
  ``access: premium`` (or disagrees with the roadmap); replaces
  ``<!-- insert: PATH.py:FUNC(ARGS) -->`` with the function's result; checks that
  every fenced block that includes a snippet is titled with that file's path,
  and adds a link to the whole file under it.
- ``on_post_page``: puts the access badge under the page's first heading.
- ``on_post_build``: writes files that build-time functions produced (plots,
  raw result files) into the site.
"""

from __future__ import annotations

import ast
import html
import importlib
import inspect
import json
import posixpath
import re
import sys
import time
from pathlib import Path
from typing import Any

import yaml
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
ROADMAP_PATH = ROOT / "docs" / "roadmap.yml"
SOURCE_DIRS = ("snippets", "kernels")
ACCESS_LEVELS = ("free", "premium")
PROJECT_PACKAGES = ("snippets", "kernels", "scripts")


def ensure_root_on_path() -> None:
    # MkDocs puts the hook's folder on sys.path only while loading it.
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


INSERT_RE = re.compile(
    r"<!--\s*insert:\s*(?P<path>[\w./-]+\.py):(?P<func>\w+)\((?P<args>[^\n]*?)\)\s*-->"
)
FENCE_OPEN_RE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
TITLE_RE = re.compile(r'title="(?P<title>[^"]*)"')
SNIPPET_LINE_RE = re.compile(r'^\s*-{1,}8<-{1,}\s+"(?P<target>[^"]+)"\s*$')

# Build-wide state, reset in on_pre_build.
_state: dict[str, Any] = {"timings": {}}


# --------------------------------------------------------------------------
# Roadmap and navigation
# --------------------------------------------------------------------------


def load_roadmap(path: Path = ROADMAP_PATH) -> dict:
    """The parsed roadmap, with a clear error for a malformed entry."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PluginError(f"{path}: cannot read the roadmap: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("sections"), list):
        raise PluginError(f"{path}: expected a top-level 'sections' list")
    for entry in iter_entries(data):
        for field in ("title", "path", "access"):
            if field not in entry:
                raise PluginError(f"{path}: entry {entry!r} lacks '{field}'")
        if entry["access"] not in ACCESS_LEVELS:
            raise PluginError(
                f"{path}: entry {entry['path']!r} has access {entry['access']!r};"
                f" use one of {ACCESS_LEVELS}"
            )
    return data


def iter_entries(roadmap: dict):
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


def build_nav(roadmap: dict, docs_dir: Path) -> list:
    """The MkDocs nav: the roadmap's tree, keeping only pages that exist.

    Pages live in the section of the folder they sit in: a project reached
    from a course module is listed under Projects, not twice.
    """
    nav: list = []
    for section in roadmap["sections"]:
        children: list = []
        if section.get("path") and "items" not in section and "modules" not in section:
            if "collects" not in section:
                if page_exists(docs_dir, section["path"]):
                    nav.append({section["title"]: section["path"]})
                continue
        if section.get("path") and page_exists(docs_dir, section["path"]):
            children.append(section["path"])
        folder = posixpath.dirname(section.get("path", "")) or None
        for item in section.get("items", []):
            if page_exists(docs_dir, item["path"]):
                children.append({item["title"]: item["path"]})
        for module in section.get("modules", []):
            built = [
                {item["title"]: item["path"]}
                for item in module.get("items", [])
                if page_exists(docs_dir, item["path"])
                and (folder is None or item["path"].startswith(folder + "/"))
            ]
            if built:
                children.append({module["title"]: built})
        if "collects" in section:
            for entry in iter_entries(roadmap):
                if (
                    entry.get("kind") == section["collects"]
                    and entry["path"].startswith(folder + "/")
                    and page_exists(docs_dir, entry["path"])
                ):
                    children.append({entry["title"]: entry["path"]})
        if children:
            nav.append({section["title"]: children})
    return nav


# --------------------------------------------------------------------------
# Access levels
# --------------------------------------------------------------------------


def access_badge(level: str) -> str:
    label = {"free": "Free", "premium": "Premium"}[level]
    return (
        f'<span class="access-badge access-{level}" '
        f'title="Access level: {label}">{label}</span>'
    )


def notebook_access(path: Path) -> str | None:
    """A notebook page declares its level in the notebook's metadata."""
    try:
        meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
    except (OSError, ValueError):
        return None
    return meta.get("access")


def page_access(page) -> str:
    src = page.file.src_uri
    if src.endswith(".ipynb"):
        level = notebook_access(Path(page.file.abs_src_path))
    else:
        level = (page.meta or {}).get("access")
    if level not in ACCESS_LEVELS:
        raise PluginError(
            f"docs/{src}: missing or invalid 'access' (found {level!r}); declare "
            f"'access: free' or 'access: premium' in the page's front matter"
            + (" (for a notebook: in its metadata)" if src.endswith(".ipynb") else "")
        )
    expected = _state.get("roadmap_access", {}).get(src)
    if expected and expected != level:
        raise PluginError(
            f"docs/{src}: front matter says access {level!r} but docs/roadmap.yml "
            f"says {expected!r}; make them agree"
        )
    return level


# --------------------------------------------------------------------------
# Computed values: <!-- insert: PATH.py:FUNC(ARGS) -->
# --------------------------------------------------------------------------


def module_for(path: str):
    """Import a project file by its repository path (snippets/x/y.py)."""
    ensure_root_on_path()
    file = (ROOT / path).resolve()
    if not file.is_file():
        raise FileNotFoundError(f"no such file {path!r}")
    dotted = ".".join(file.relative_to(ROOT).with_suffix("").parts)
    return importlib.import_module(dotted)


def parse_literal_call(args_text: str) -> tuple[tuple, dict]:
    """Positional and keyword arguments, each a Python literal."""
    call = ast.parse(f"f({args_text})", mode="eval").body
    args = tuple(ast.literal_eval(arg) for arg in call.args)
    kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    return args, kwargs


def run_insert(path: str, func_name: str, args_text: str, page_url: str) -> str:
    module = module_for(path)
    func = getattr(module, func_name, None)
    if func is None or not callable(func):
        raise AttributeError(f"{path} has no function {func_name!r}")
    args, kwargs = parse_literal_call(args_text)
    if "page_url" in inspect.signature(func).parameters:
        kwargs["page_url"] = page_url
    started = time.perf_counter()
    result = func(*args, **kwargs)
    key = f"{path}:{func_name}"
    _state["timings"][key] = (
        _state["timings"].get(key, 0.0) + time.perf_counter() - started
    )
    return str(result)


def expand_inserts(markdown: str, src: str, page_url: str) -> str:
    def replace(match: re.Match) -> str:
        where = f"{match['path']}:{match['func']}({match['args']})"
        try:
            return run_insert(match["path"], match["func"], match["args"], page_url)
        except Exception as exc:  # every failure names the page and placeholder
            raise PluginError(
                f"docs/{src}: insert {where} failed: {type(exc).__name__}: {exc}"
            ) from exc

    return "\n".join(
        line if in_code else substitute_outside_code_spans(INSERT_RE, replace, line)
        for line, in_code in lines_with_fence_state(markdown)
    )


CODE_SPAN_RE = re.compile(r"(`+)(?:.+?)\1")


def substitute_outside_code_spans(pattern: re.Pattern, replace, line: str) -> str:
    """pattern.sub on the parts of a line outside `inline code` spans."""
    out, last = [], 0
    for span in CODE_SPAN_RE.finditer(line):
        out.append(pattern.sub(replace, line[last : span.start()]))
        out.append(span.group(0))
        last = span.end()
    out.append(pattern.sub(replace, line[last:]))
    return "".join(out)


def lines_with_fence_state(markdown: str):
    """Each line with whether it sits inside a fenced code block, so that
    placeholders shown as examples in code are left alone."""
    fence = None
    for line in markdown.split("\n"):
        stripped = line.strip()
        if fence is None:
            opened = FENCE_OPEN_RE.match(line)
            if opened:
                fence = opened["fence"]
                yield line, True
                continue
            yield line, False
        else:
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = None
            yield line, True


# --------------------------------------------------------------------------
# Code blocks: titled by their file, with a link to the whole tested file
# --------------------------------------------------------------------------


def relative_to_page(page_url: str, target: str) -> str:
    """A link from the page at page_url (directory URLs) to a site path."""
    depth = len([part for part in page_url.split("/") if part])
    return "../" * depth + target


def annotate_code_blocks(markdown: str, src: str, page_src: str) -> str:
    """Check titles of snippet-including fences and add whole-file links."""
    lines = markdown.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        opened = FENCE_OPEN_RE.match(lines[i])
        if not opened:
            out.append(lines[i])
            i += 1
            continue
        indent, fence = opened["indent"], opened["fence"]
        title_match = TITLE_RE.search(opened["info"])
        block = [lines[i]]
        i += 1
        while i < len(lines):
            block.append(lines[i])
            stripped = lines[i].strip()
            i += 1
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(
                fence[0]
            ):
                break
        out.extend(block)
        targets = [
            m["target"] for line in block[1:-1] if (m := SNIPPET_LINE_RE.match(line))
        ]
        if not targets:
            continue
        files = {target.split(":")[0] for target in targets}
        title = title_match["title"] if title_match else None
        if len(files) != 1 or title != next(iter(files)):
            raise PluginError(
                f"docs/{src}: a code block including {sorted(files)} must be "
                f'titled with that one file\'s path, e.g. title="{sorted(files)[0]}"'
                f" (found title={title!r})"
            )
        link = posixpath.relpath(f"src/{title}", posixpath.dirname(page_src) or ".")
        out.append("")
        out.append(
            f"{indent}[:material-file-code-outline: Whole tested file: `{title}`]"
            f"({link}){{ .source-link download }}"
        )
        out.append("")
    return "\n".join(out)


# --------------------------------------------------------------------------
# Roadmap tables for the home page and course overviews
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
        status = access_badge(item["access"]) if built else _planned_badge()
        lines.append(f"{number}. {name} {status} — {item.get('summary', '')}")
    return "\n".join(lines).strip() + "\n"


def _planned_badge() -> str:
    return (
        '<span class="access-badge access-planned" title="Not built yet">Planned</span>'
    )


def built_pages_table(files: Files, from_src: str) -> str:
    rows = ["| Page | Section | Access |", "| --- | --- | --- |"]
    for file in sorted(_state["pages"], key=lambda f: f.src_uri):
        level = _state["page_levels"].get(file.src_uri, "?")
        section = file.src_uri.split("/")[0] if "/" in file.src_uri else "home"
        title = _state["page_titles"].get(file.src_uri, file.src_uri)
        badge = access_badge(level) if level in ACCESS_LEVELS else level
        rows.append(f"| {_link(from_src, file.src_uri, title)} | {section} | {badge} |")
    return "\n".join(rows) + "\n"


def planned_pages_table(roadmap: dict, docs_dir: Path) -> str:
    rows = ["| Planned page | Kind | Access when built |", "| --- | --- | --- |"]
    for entry in iter_entries(roadmap):
        if not page_exists(docs_dir, entry["path"]):
            rows.append(
                f"| {entry['title']} {_planned_badge()} | {entry.get('kind', '')} "
                f"| {entry['access']} |"
            )
    return "\n".join(rows) + "\n"


def count_items(roadmap: dict, course: str) -> dict[str, int]:
    items = course_items(roadmap, course)
    modules = {module for module, _ in items}
    return {"modules": len(modules), "items": len(items)}


ROADMAP_PLACEHOLDER_RE = re.compile(
    r"<!--\s*roadmap:\s*(?P<what>[\w-]+)(?:\s+(?P<arg>[^>]*?))?\s*-->"
)


def expand_roadmap(markdown: str, src: str, files: Files, docs_dir: Path) -> str:
    roadmap = _state["roadmap"]

    def replace(match: re.Match) -> str:
        what, arg = match["what"], (match["arg"] or "").strip()
        if what == "path":
            return render_path(roadmap, docs_dir, src, arg)
        if what == "built":
            return built_pages_table(files, src)
        if what == "planned":
            return planned_pages_table(roadmap, docs_dir)
        if what == "count":
            course, _, field = arg.rpartition(" ")
            return str(count_items(roadmap, course)[field])
        if what == "projects":
            return _collected_list(roadmap, docs_dir, src, "project")
        if what == "items":
            return _section_list(roadmap, docs_dir, src, arg)
        raise PluginError(f"docs/{src}: unknown roadmap placeholder {what!r}")

    return ROADMAP_PLACEHOLDER_RE.sub(replace, markdown)


def _entry_line(entry: dict, docs_dir: Path, src: str) -> str:
    built = page_exists(docs_dir, entry["path"])
    name = _link(src, entry["path"], entry["title"]) if built else entry["title"]
    badge = access_badge(entry["access"]) if built else _planned_badge()
    return f"- {name} {badge} — {entry.get('summary', '')}"


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


# --------------------------------------------------------------------------
# MkDocs events
# --------------------------------------------------------------------------


def on_pre_build(config, **kwargs):
    # `mkdocs serve` rebuilds in one process: re-import project code each time.
    for name in list(sys.modules):
        if name.split(".")[0] in PROJECT_PACKAGES and name != __name__:
            del sys.modules[name]
    _state["timings"] = {}
    _state["site_files"] = {}


def on_config(config, **kwargs):
    docs_dir = Path(config["docs_dir"])
    roadmap = load_roadmap()
    _state["roadmap"] = roadmap
    _state["roadmap_access"] = {e["path"]: e["access"] for e in iter_entries(roadmap)}
    config["nav"] = build_nav(roadmap, docs_dir)
    return config


def on_files(files: Files, config, **kwargs):
    for folder in SOURCE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(ROOT).as_posix()
            files.append(File.generated(config, f"src/{rel}", abs_src_path=str(path)))
    _state["pages"] = [f for f in files.documentation_pages()]
    _state["page_levels"] = {}
    _state["page_titles"] = {}
    docs_dir = Path(config["docs_dir"])
    for file in _state["pages"]:
        level, title = _peek_page(docs_dir / file.src_uri)
        _state["page_levels"][file.src_uri] = level
        _state["page_titles"][file.src_uri] = title or file.src_uri
    return files


def _peek_page(path: Path) -> tuple[str | None, str | None]:
    """Access level and H1 title of a page, read before it is rendered."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        level = nb.get("metadata", {}).get("access")
        for cell in nb.get("cells", []):
            if cell.get("cell_type") == "markdown":
                for line in "".join(cell.get("source", [])).splitlines():
                    if line.startswith("# "):
                        return level, line[2:].strip()
        return level, None
    text = path.read_text(encoding="utf-8")
    level = None
    if text.startswith("---"):
        end = text.find("\n---", 3)
        meta = yaml.safe_load(text[3:end]) if end > 0 else None
        if isinstance(meta, dict):
            level = meta.get("access")
    title = next(
        (line[2:].strip() for line in text.splitlines() if line.startswith("# ")),
        None,
    )
    return level, title


def on_page_markdown(markdown: str, page, config, files, **kwargs):
    src = page.file.src_uri
    page_access(page)
    docs_dir = Path(config["docs_dir"])
    markdown = expand_inserts(markdown, src, page.url)
    markdown = expand_roadmap(markdown, src, files, docs_dir)
    markdown = annotate_code_blocks(markdown, src, src)
    return markdown


def on_page_context(context, page, config, nav, **kwargs):
    # A notebook's front matter lives in its metadata; give it to the theme.
    if page.file.src_uri.endswith(".ipynb"):
        meta = json.loads(Path(page.file.abs_src_path).read_text(encoding="utf-8"))
        for key in ("access", "description"):
            value = meta.get("metadata", {}).get(key)
            if value is not None:
                page.meta.setdefault(key, value)
    return context


def on_post_page(output: str, page, config, **kwargs):
    level = page_access(page)
    badge = f'<p class="access-line">{access_badge(level)}</p>'
    # After the first heading of the article (Markdown and notebook pages alike).
    match = re.search(r"</h1>", output)
    if match is None:
        raise PluginError(f"docs/{page.file.src_uri}: the page has no H1 heading")
    return output[: match.end()] + badge + output[match.end() :]


def on_post_build(config, **kwargs):
    site_dir = Path(config["site_dir"])
    for module_path, func_name in SITE_FILE_PROVIDERS:
        if not (ROOT / module_path).is_file():
            continue
        module = module_for(module_path)
        provider = getattr(module, func_name, None)
        if provider is None:
            continue
        for rel, content in provider().items():
            target = site_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(
                content if isinstance(content, bytes) else content.encode()
            )
    slow = {k: v for k, v in _state["timings"].items() if v > 1.0}
    if slow:
        summary = ", ".join(f"{k} {v:.1f} s" for k, v in sorted(slow.items()))
        print(f"hooks: slow build-time inserts: {summary}", file=sys.stderr)


# Modules whose `FUNC()` returns {site-relative path: bytes} written into the
# built site (plots, raw result files for download).
SITE_FILE_PROVIDERS = [("scripts/bench_embed.py", "site_files")]


def escape(text: str) -> str:
    return html.escape(text, quote=True)
