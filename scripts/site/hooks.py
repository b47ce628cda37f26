"""ProperDocs build hooks: the roadmap, access levels, computed values, sources.

What they do, in build order:

- ``on_config``: reads ``docs/roadmap.yml`` and generates the navigation from
  it, keeping only pages whose files exist (the rest is "planned"; see
  ``scripts/site/roadmap.py``).
- ``on_pre_build``: starts drawing the plots that build-time functions
  produce (``SITE_FILE_PROVIDERS``) in a second process.
- ``on_files``: publishes every file under ``snippets/``, ``kernels/`` and
  ``scripts/`` at ``src/<path>`` so each code block can link to the whole
  tested file, and reads every page's access level and title for the table
  of built pages.
- ``on_page_markdown``: fails the build when a page lacks ``access: free`` or
  ``access: premium`` (or disagrees with the roadmap); replaces
  ``<!-- insert: PATH.py:FUNC(ARGS) -->`` with the function's result,
  ``<!-- fact: PATH.py:KEY -->`` with ``facts()[KEY]`` of that file (one
  mapping per snippet, computed once a build; an unknown key fails here) and
  ``<!-- roadmap: ... -->`` with a roadmap table, ``<!-- run: ... -->`` with
  the "Run it yourself" box (``scripts/site/run_boxes.py``) and
  ``<!-- glossary -->`` with the terms (``scripts/site/glossary.py``),
  ``<!-- badge: KIND -->`` with an evidence badge (``scripts/site/badges.py``); checks
  that every fenced block that includes a snippet is titled with that file's
  path (plus
  `` (excerpt)`` when it does not run alone).
- ``on_post_page``: puts the access badge under the page's first heading
  and makes each code block's file title a link to the whole tested file.
- ``on_post_build``: writes those files (plots, raw result files) into the
  site.

Nothing here imports torch or Triton, and neither may any function a page
inserts: tests/site/test_build.py builds the site with ``-X importtime``.
"""

from __future__ import annotations

import ast
import html
import inspect
import json
import multiprocessing
import posixpath
import re
import sys
import time
from pathlib import Path
from typing import Any

from properdocs.exceptions import PluginError
from properdocs.structure.files import File, Files
from properdocs.utils.meta import get_data

from scripts.site import calculators
from scripts.site.badges import BadgeError, expand_badges
from scripts.site.diagrams import expand_diagrams, place_diagrams
from scripts.site.fences import (
    fences,
    lines_with_fence_state,
    substitute_in_prose,
)
from scripts.site.glossary import expand_glossary
from scripts.site.roadmap import (
    ACCESS_LEVELS,
    BuiltPage,
    access_badge,
    build_nav,
    expand_roadmap,
    iter_entries,
    load_roadmap,
)
from scripts.site.run_boxes import RunBoxError, expand_run_boxes

ROOT = Path(__file__).resolve().parents[2]
# Published at src/<path> so a page can link to the whole tested file.
SOURCE_DIRS = ("snippets", "kernels", "evidence", "scripts")
PROJECT_PACKAGES = ("snippets", "kernels", "evidence", "scripts")
# Modules whose `FUNC()` returns {site-relative path: bytes} written into the
# built site (plots, raw result files for download).
SITE_FILE_PROVIDERS = [("scripts/site/bench_pages.py", "site_files")]

INSERT_RE = re.compile(
    r"<!--\s*insert:\s*(?P<path>[\w./-]+\.py):(?P<func>\w+)\((?P<args>[^\n]*?)\)\s*-->"
)
# One value a snippet states: the module's `facts()` mapping, looked up by key.
FACT_RE = re.compile(r"<!--\s*fact:\s*(?P<path>[\w./-]+\.py):(?P<key>[\w.-]+)\s*-->")
# A displayed block that does not run when pasted alone says so in its title.
EXCERPT_SUFFIX = " (excerpt)"
INDENTED_INSERT_RE = re.compile(
    r"^(?P<indent>[ \t]+)(?P<placeholder><!--\s*(?:insert|fact):[^\n]*?-->)\s*$"
)
SNIPPET_LINE_RE = re.compile(r'^\s*-{1,}8<-{1,}\s+"(?P<target>[^"]+)"\s*$')

# Build-wide state, reset in on_pre_build.
_state: dict[str, Any] = {"timings": {}}


# --------------------------------------------------------------------------
# Access levels and titles
# --------------------------------------------------------------------------


def notebook_metadata(path: Path) -> dict:
    """A notebook page's metadata: where it declares its access level."""
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
    except (OSError, ValueError):
        return {}


def page_access(page) -> str:
    src = page.file.src_uri
    if src.endswith(".ipynb"):
        level = notebook_metadata(Path(page.file.abs_src_path)).get("access")
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


def first_heading(markdown: str) -> str | None:
    """The text of the first `# ` heading outside code blocks."""
    return next(
        (
            line[2:].strip()
            for line, in_code in lines_with_fence_state(markdown)
            if not in_code and line.startswith("# ")
        ),
        None,
    )


def peek_page(path: Path) -> tuple[str | None, str | None]:
    """Access level and H1 title of a page, read before it is rendered (the
    home page's table of built pages lists every page)."""
    if path.suffix == ".ipynb":
        notebook = json.loads(path.read_text(encoding="utf-8"))
        markdown = "\n".join(
            "".join(cell.get("source", []))
            for cell in notebook.get("cells", [])
            if cell.get("cell_type") == "markdown"
        )
        return notebook.get("metadata", {}).get("access"), first_heading(markdown)
    markdown, meta = get_data(path.read_text(encoding="utf-8"))
    return meta.get("access"), first_heading(markdown)


# --------------------------------------------------------------------------
# Computed values: <!-- insert: PATH.py:FUNC(ARGS) -->
# --------------------------------------------------------------------------


def module_for(path: str):
    """Import a project file by its repository path (snippets/x/y.py)."""
    file = (ROOT / path).resolve()
    if not file.is_file():
        raise FileNotFoundError(f"no such file {path!r}")
    dotted = ".".join(file.relative_to(ROOT).with_suffix("").parts)
    # The import statement's machinery rather than importlib.import_module:
    # only that is logged by `python -X importtime`, so the build's import
    # report names the page module that pulled in, say, torch.
    __import__(dotted)
    return sys.modules[dotted]


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


class UnknownFact(KeyError):
    """A `fact:` key the snippet's facts() does not hold."""

    def __str__(self) -> str:
        return self.args[0]


def fact_value(path: str, key: str) -> str:
    """`facts()[key]` of the project file at `path`, computed once a build;
    the one place an unknown key is refused, naming the keys there are."""
    cache = _state.setdefault("facts", {})
    if path not in cache:
        func = getattr(module_for(path), "facts", None)
        if func is None or not callable(func):
            raise AttributeError(f"{path} has no function 'facts'")
        started = time.perf_counter()
        cache[path] = func()
        timing = f"{path}:facts"
        _state["timings"][timing] = time.perf_counter() - started
    values = cache[path]
    if key not in values:
        known = ", ".join(sorted(values)[:12])
        more = f" and {len(values) - 12} more" if len(values) > 12 else ""
        raise UnknownFact(f"{path}: facts() has no key {key!r} (known: {known}{more})")
    return str(values[key])


def make_figure(path: str, func_name: str, args_text: str):
    func = getattr(module_for(path), func_name, None)
    if func is None or not callable(func):
        raise AttributeError(f"{path} has no function {func_name!r}")
    args, kwargs = parse_literal_call(args_text)
    return func(*args, **kwargs)


def expand_page_diagrams(markdown: str, src: str) -> str:
    store = _state.setdefault("diagrams", {}).setdefault(src, [])
    store.clear()
    try:
        return expand_diagrams(markdown, src, make_figure, store, substitute_in_prose)
    except Exception as exc:  # every failure names the page
        raise PluginError(f"docs/{src}: {type(exc).__name__}: {exc}") from exc


def expand_inserts(markdown: str, src: str, page_url: str) -> str:
    def replace(match: re.Match) -> str:
        where = f"{match['path']}:{match['func']}({match['args']})"
        try:
            return run_insert(match["path"], match["func"], match["args"], page_url)
        except Exception as exc:  # every failure names the page and placeholder
            raise PluginError(
                f"docs/{src}: insert {where} failed: {type(exc).__name__}: {exc}"
            ) from exc

    def replace_fact(match: re.Match) -> str:
        try:
            return fact_value(match["path"], match["key"])
        except Exception as exc:  # every failure names the page and placeholder
            raise PluginError(
                f"docs/{src}: fact {match['path']}:{match['key']} failed: "
                f"{type(exc).__name__}: {exc}"
            ) from exc

    def both(text: str) -> str:
        return FACT_RE.sub(replace_fact, INSERT_RE.sub(replace, text))

    # A placeholder alone on an indented line (inside an admonition or a
    # folded answer) keeps every line of a multi-line result, such as a
    # table, at that indentation, so the result stays inside the block.
    lines = []
    for line, in_code in lines_with_fence_state(markdown):
        whole = None if in_code else INDENTED_INSERT_RE.match(line)
        if whole:
            text = both(whole["placeholder"])
            line = whole["indent"] + text.rstrip("\n").replace(
                "\n", "\n" + whole["indent"]
            )
        lines.append(line)
    markdown = substitute_in_prose(INSERT_RE, replace, "\n".join(lines))
    return substitute_in_prose(FACT_RE, replace_fact, markdown)


# --------------------------------------------------------------------------
# Code blocks: titled by their file, with a link to the whole tested file
# --------------------------------------------------------------------------


def annotate_code_blocks(markdown: str, src: str) -> str:
    """Check titles of snippet-including fences and add whole-file links."""
    lines = markdown.split("\n")
    out: list[str] = []
    done = 0
    for block in fences(lines):
        out.extend(lines[done : block.stop])
        done = block.stop
        targets = [
            m["target"]
            for line in block.body(lines)
            if (m := SNIPPET_LINE_RE.match(line))
        ]
        title = (block.title or "").removesuffix(EXCERPT_SUFFIX)
        if not targets:
            if not (block.title or "").endswith(EXCERPT_SUFFIX):
                continue
            # An excerpt written into the page (or inserted) links to its file.
            if title.split("/")[0] not in SOURCE_DIRS or not (ROOT / title).is_file():
                raise PluginError(
                    f"docs/{src}: an excerpt's title must name the project file "
                    f'it comes from, e.g. title="snippets/x/y.py{EXCERPT_SUFFIX}"'
                    f" (found title={block.title!r})"
                )
            targets = [title]
        files = {target.split(":")[0] for target in targets}
        if len(files) != 1 or title != next(iter(files)):
            raise PluginError(
                f"docs/{src}: a code block including {sorted(files)} must be "
                f'titled with that one file\'s path, e.g. title="{sorted(files)[0]}"'
                f" or, if it does not run alone, "
                f'title="{sorted(files)[0]}{EXCERPT_SUFFIX}" (found title='
                f"{block.title!r})"
            )
        # The block's title becomes the link to the whole file, in the HTML
        # (link_code_titles): no line of its own under every block.
    out.extend(lines[done:])
    return "\n".join(out)


FILENAME_RE = re.compile(r'<span class="filename">(?P<title>[^<]+)</span>')


def link_code_titles(output: str, page_url: str) -> str:
    """Each code block titled with a project file links its title to the
    whole tested file, published at src/<path>."""

    def link(match: re.Match) -> str:
        title = match["title"]
        path = html.unescape(title).removesuffix(EXCERPT_SUFFIX)
        if path.split("/")[0] not in SOURCE_DIRS or not (ROOT / path).is_file():
            return match.group(0)
        href = posixpath.relpath(f"src/{path}", page_url.rstrip("/") or ".")
        return (
            f'<span class="filename"><a class="source-link" href="{href}" '
            f'title="The whole tested file" download>{title}</a></span>'
        )

    return FILENAME_RE.sub(link, output)


def expand_page_run_boxes(markdown: str, src: str) -> str:
    """`<!-- run: snippets/x/y.py -->` -> the "Run it yourself" box."""

    def link_for(path: str) -> str:
        return posixpath.relpath(f"src/{path}", posixpath.dirname(src) or ".")

    try:
        return expand_run_boxes(markdown, src, link_for, _state["timings"])
    except RunBoxError as exc:
        raise PluginError(str(exc)) from exc


def expand_page_badges(markdown: str, src: str) -> str:
    """`<!-- badge: KIND -->` -> the evidence badge (scripts/site/badges.py)."""
    try:
        return expand_badges(markdown, src)
    except BadgeError as exc:
        raise PluginError(str(exc)) from exc


# --------------------------------------------------------------------------
# Files written into the site: plots and raw result files
# --------------------------------------------------------------------------


class _Ready:
    """A result computed in this process, with the pool result's ``get``."""

    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value


def providers_used(docs_dir: Path, providers=SITE_FILE_PROVIDERS) -> list:
    """The providers whose module some page calls: a site whose pages show
    no benchmark table needs no plots drawn."""
    texts = [
        path.read_text(encoding="utf-8", errors="replace")
        for path in docs_dir.rglob("*.md")
    ]
    return [
        (module, func)
        for module, func in providers
        if any(module in text for text in texts)
    ]


def start_site_files(providers=SITE_FILE_PROVIDERS, *, in_background=True):
    """Call every provider and return the pool (or None) and the pending
    results. The plots take seconds and need nothing the pages make, so for
    a one-off build they draw in one forked process on the machine's other
    core while the pages render. ``serve`` runs them in this process: it
    keeps server threads, and forking a threaded process is unsafe."""
    functions = [
        function
        for module_path, func_name in providers
        if (ROOT / module_path).is_file()
        and (function := getattr(module_for(module_path), func_name, None))
    ]
    if not in_background:
        return None, [_Ready(function()) for function in functions]
    pool = multiprocessing.get_context("fork").Pool(1)
    pending = [pool.apply_async(function) for function in functions]
    pool.close()
    return pool, pending


def write_site_files(site_dir: Path, pending) -> None:
    """Write each provider's {site-relative path: content} under site_dir;
    a provider's exception is raised here."""
    for result in pending:
        for rel, content in result.get().items():
            target = site_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(
                content if isinstance(content, bytes) else content.encode()
            )


# --------------------------------------------------------------------------
# Generator events
# --------------------------------------------------------------------------


def on_startup(command, **kwargs):
    _state["command"] = command


def on_config(config, **kwargs):
    docs_dir = Path(config["docs_dir"])
    roadmap = load_roadmap()
    _state["roadmap"] = roadmap
    _state["roadmap_access"] = {e["path"]: e["access"] for e in iter_entries(roadmap)}
    config["nav"] = build_nav(roadmap, docs_dir)
    return config


def on_pre_build(config, **kwargs):
    # `properdocs serve` rebuilds in one process: re-import project code each
    # time. (The generator loads this file under its path, not a dotted name,
    # so it is never among them.)
    for name in list(sys.modules):
        if name.split(".")[0] in PROJECT_PACKAGES:
            del sys.modules[name]
    _state["timings"] = {}
    _state["facts"] = {}
    _state["pool"], _state["site_files"] = start_site_files(
        providers_used(Path(config["docs_dir"])),
        in_background=_state.get("command") == "build",
    )


def on_files(files: Files, config, **kwargs):
    for folder in SOURCE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(ROOT).as_posix()
            files.append(File.generated(config, f"src/{rel}", abs_src_path=str(path)))
    docs_dir = Path(config["docs_dir"])
    built = []
    for file in files.documentation_pages():
        level, title = peek_page(docs_dir / file.src_uri)
        built.append(BuiltPage(file.src_uri, title or file.src_uri, level))
    _state["built"] = built
    return files


def on_page_markdown(markdown: str, page, config, files, **kwargs):
    src = page.file.src_uri
    page_access(page)
    docs_dir = Path(config["docs_dir"])
    markdown = expand_inserts(markdown, src, page.url)
    markdown = calculators.expand(markdown, src, page.url)
    markdown = expand_page_run_boxes(markdown, src)
    markdown = expand_page_diagrams(markdown, src)
    markdown = expand_roadmap(
        markdown, src, _state["roadmap"], docs_dir, _state["built"]
    )
    markdown = expand_glossary(markdown, src, _state["roadmap"], docs_dir)
    markdown = expand_page_badges(markdown, src)
    return annotate_code_blocks(markdown, src)


def on_page_context(context, page, config, nav, **kwargs):
    # A notebook's front matter lives in its metadata; give it to the theme.
    if page.file.src_uri.endswith(".ipynb"):
        metadata = notebook_metadata(Path(page.file.abs_src_path))
        for key in ("access", "description"):
            if metadata.get(key) is not None:
                page.meta.setdefault(key, metadata[key])
    return context


def on_post_page(output: str, page, config, **kwargs):
    level = page_access(page)
    output = place_diagrams(
        output, _state.get("diagrams", {}).get(page.file.src_uri, [])
    )
    # The badge links to the page that says what the label means.
    access_page = posixpath.relpath("reference/access/", page.url or ".") + "/"
    output = link_code_titles(output, page.url)
    badge = (
        f'<p class="access-line"><a class="access-link" href="{access_page}" '
        f'title="What Free and Premium mean: every page is open today">'
        f"{access_badge(level)}</a></p>"
    )
    # After the first heading of the article (Markdown and notebook pages alike).
    match = re.search(r"</h1>", output)
    if match is None:
        raise PluginError(f"docs/{page.file.src_uri}: the page has no H1 heading")
    return output[: match.end()] + badge + output[match.end() :]


def on_post_build(config, **kwargs):
    write_site_files(Path(config["site_dir"]), _state.pop("site_files", []))
    calculators.write_site(Path(config["site_dir"]))
    if pool := _state.pop("pool", None):
        pool.join()
    slow = {k: v for k, v in _state["timings"].items() if v > 1.0}
    if slow:
        summary = ", ".join(f"{k} {v:.1f} s" for k, v in sorted(slow.items()))
        print(f"hooks: slow build-time inserts: {summary}", file=sys.stderr)


def on_build_error(error, **kwargs):
    # A failed build does not wait for its plots.
    if pool := _state.pop("pool", None):
        pool.terminate()
