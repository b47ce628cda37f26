"""ProperDocs build hooks: the roadmap, access levels, computed values, sources.

The placeholders a page may write are listed once, in
``scripts/site/placeholders.py:KINDS`` (docs/contributing.md shows them as a
table generated from it); a page with any other kind fails the build.

What the hooks do, in build order:

- ``on_config``: reads ``docs/roadmap.yml`` (checked against its JSON Schema)
  and generates the navigation from it, keeping only pages whose files exist
  (the rest is "planned"; see ``scripts/site/roadmap.py``).
- ``on_files``: publishes every file under ``snippets/``, ``kernels/``,
  ``evidence/`` and ``scripts/`` at ``src/<path>`` so each code block can link
  to the whole tested file, and reads every page's access level and title for
  the table of built pages. For a one-off build it starts two processes: one
  computes the pages' values from the last page back (``prefetch.py``), one
  draws the plots that build-time functions produce (``SITE_FILE_PROVIDERS``).
- ``on_page_markdown``: fails the build when a page lacks ``access: free`` or
  ``access: premium`` (or disagrees with the roadmap) or uses an unknown
  placeholder kind; expands the placeholders (``expand_page``); checks that
  every fenced block that includes a snippet is titled with that file's path (plus
  `` (excerpt)`` when it does not run alone), and adds a link to the whole
  file under it and under every excerpt.

  Expansion order, and why: placeholders are expanded from the page's own
  Markdown only, never from a value a function returned (a result file's
  device name holding ``<!-- diagram: ... -->`` must stay text). Inserts and
  facts are expanded first, each into a stash token that no other kind's
  syntax matches; calculators, predictions, run boxes, diagrams, roadmap
  tables and the glossary are then expanded from the source with the tokens
  in place; the tokens become their values last, before the code-block
  check (which must see inserted fences). Values printed from data files
  are also inert (``evidence.text.inert``), so the snippets extension's
  ``--8<--`` never meets one. A diagram may call only a function defined in
  the page's own snippet folder (``snippets/<page_name>/``, the page's file
  name with ``_`` for ``-``) or under ``snippets/lib/``.
  ``<!-- badge: KIND -->`` becomes an evidence badge (``scripts/site/badges.py``),
  expanded from the source like the others.
- ``on_post_page``: puts the access badge under the page's first heading
  and makes each code block's file title a link to the whole tested file.
- ``on_post_build``: writes those files (plots, raw result files) into the
  site.

Inserted values, facts, diagrams, run-box output and the plots are cached on
disk (``scripts/site/build_cache.py``), keyed by the hashes of the module
that computes each and of every project module it imports, so a rebuild
after a prose edit recomputes nothing and a code edit recomputes what it
touches.

Nothing here imports torch or Triton, and neither may any function a page
inserts: tests/site/test_build.py builds the site with ``-X importtime``.
"""

from __future__ import annotations

import ast
import inspect
import json
import posixpath
import re
import sys
import time
from pathlib import Path
from typing import Any

from properdocs.exceptions import PluginError
from properdocs.structure.files import File, Files
from properdocs.utils.meta import get_data

from scripts.site import calculators, kernel_editor, placeholders, prefetch, site_files
from scripts.site.badges import BadgeError, expand_badges
from scripts.site.build_cache import (
    MISSING,
    BuildCache,
    RecordedFigure,
    StoredFigure,
)
from scripts.site.code_blocks import (
    SOURCE_DIRS,
    annotate_code_blocks,
    link_code_titles,
)
from scripts.site.diagrams import expand_diagrams, place_diagrams
from scripts.site.fences import (
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
from scripts.site.run_boxes import RunBoxError, expand_run_boxes, output_for

ROOT = Path(__file__).resolve().parents[2]
PROJECT_PACKAGES = ("snippets", "kernels", "evidence", "scripts")
# Modules whose `FUNC()` returns {site-relative path: bytes} written into the
# built site (plots, raw result files for download).
# Each is drawn only when some page names the module in its third field.
SITE_FILE_PROVIDERS = [
    ("scripts/site/bench_plot.py", "site_files", "scripts/site/bench_pages.py")
]

INSERT_RE = re.compile(
    r"<!--\s*insert:\s*(?P<path>[\w./-]+\.py):(?P<func>\w+)\((?P<args>[^\n]*?)\)\s*-->"
)
# One value a snippet states: the module's `facts()` mapping, looked up by key.
FACT_RE = re.compile(r"<!--\s*fact:\s*(?P<path>[\w./-]+\.py):(?P<key>[\w.-]+)\s*-->")
INDENTED_INSERT_RE = re.compile(
    # one placeholder, alone: "[^\n]*?-->" would run on to a badge after it
    r"^(?P<indent>[ \t]+)(?P<placeholder><!--\s*(?:insert|fact):"
    r"(?:(?!-->)[^\n])*-->)\s*$"
)

# Build-wide state, reset in on_pre_build.
_state: dict[str, Any] = {"timings": {}}


def cache() -> BuildCache:
    """This build's cache; outside a build (a test calling a hook function)
    none, so a test's own files are never mistaken for stored values."""
    if "cache" not in _state:
        _state["cache"] = BuildCache(enabled=False)
    return _state["cache"]


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


def call_insert(path: str, func_name: str, args_text: str, page_url: str) -> str:
    func = getattr(module_for(path), func_name, None)
    if func is None or not callable(func):
        raise AttributeError(f"{path} has no function {func_name!r}")
    args, kwargs = parse_literal_call(args_text)
    if "page_url" in inspect.signature(func).parameters:
        kwargs["page_url"] = page_url
    return str(func(*args, **kwargs))


def run_insert(path: str, func_name: str, args_text: str, page_url: str) -> str:
    """The insert's result, from the cache when its sources are unchanged
    (then the module is not even imported)."""
    started = time.perf_counter()
    result = cache().get(
        "insert",
        path,
        f"{func_name}({args_text}) page_url={page_url}",
        lambda: call_insert(path, func_name, args_text, page_url),
    )
    key = f"{path}:{func_name}"
    _state["timings"][key] = (
        _state["timings"].get(key, 0.0) + time.perf_counter() - started
    )
    return result


class UnknownFact(KeyError):
    """A `fact:` key the snippet's facts() does not hold."""

    def __str__(self) -> str:
        return self.args[0]


def fact_value(path: str, key: str) -> str:
    """`facts()[key]` of the project file at `path`, computed once a build;
    the one place an unknown key is refused, naming the keys there are."""
    known = _state.setdefault("facts", {})
    if path not in known:

        def compute() -> dict:
            func = getattr(module_for(path), "facts", None)
            if func is None or not callable(func):
                raise AttributeError(f"{path} has no function 'facts'")
            return func()

        started = time.perf_counter()
        known[path] = cache().get("facts", path, "facts()", compute)
        timing = f"{path}:facts"
        _state["timings"][timing] = time.perf_counter() - started
    values = known[path]
    if key not in values:
        names = ", ".join(sorted(values)[:12])
        more = f" and {len(values) - 12} more" if len(values) > 12 else ""
        raise UnknownFact(f"{path}: facts() has no key {key!r} (known: {names}{more})")
    return str(values[key])


DIAGRAM_EXPANDERS = ("scripts/site/hooks.py", "scripts/site/diagrams.py")


def make_figure(path: str, func_name: str, args_text: str, src: str = ""):
    """Call a figure function the page may call (``diagram_refusal``), or
    reuse its SVG from the build cache when no source it depends on changed."""
    why = diagram_refusal(path, src)
    if why:
        raise PermissionError(why)
    store = cache()
    key = store.key("diagram", path, f"{func_name}({args_text})", DIAGRAM_EXPANDERS)
    svg = store.load("diagram", key)
    if svg is not MISSING:
        return StoredFigure(svg)
    module = module_for(path)
    func = getattr(module, func_name, None)
    if func is None or not callable(func) or func_name.startswith("_"):
        raise AttributeError(f"{path} has no function {func_name!r}")
    if getattr(func, "__module__", None) != module.__name__:
        raise PermissionError(
            f"{path}:{func_name} is imported there, not defined: a diagram "
            "calls a figure function of its own snippet file"
        )
    args, kwargs = parse_literal_call(args_text)
    figure = func(*args, **kwargs)
    if not hasattr(figure, "savefig"):
        return figure  # expand_diagrams names the page and the wrong type
    return RecordedFigure(figure, lambda text: store.save("diagram", key, text))


def diagram_refusal(path: str, src: str) -> str | None:
    """Why a page may not draw with ``path`` (None: it may). Allowed: the
    page's own snippet folder and the shared lesson library."""
    file = (ROOT / path).resolve()
    page_name = Path(src).stem.replace("-", "_")
    allowed = [ROOT / "snippets" / "lib", ROOT / "snippets" / page_name]
    if any(file.is_relative_to(folder) for folder in allowed):
        return None
    return (
        f"{path}: a diagram on docs/{src} may call only figure functions under "
        f"snippets/{page_name}/ or snippets/lib/"
    )


def expand_page_diagrams(markdown: str, src: str) -> str:
    store = _state.setdefault("diagrams", {}).setdefault(src, [])
    store.clear()

    def draw(path: str, func_name: str, args_text: str):
        return make_figure(path, func_name, args_text, src)

    try:
        return expand_diagrams(markdown, src, draw, store, substitute_in_prose)
    except Exception as exc:  # every failure names the page
        raise PluginError(f"docs/{src}: {type(exc).__name__}: {exc}") from exc


# A stashed value's place in the page until every other placeholder kind has
# been expanded from the source: STX/ETX, which no placeholder syntax matches.
STASH_RE = re.compile("\x02(\\d+)\x03")


def expand_inserts(
    markdown: str, src: str, page_url: str, stash: list[str] | None = None
) -> str:
    """Expand inserts and facts. With ``stash``, each value goes there and
    the page gets a token for it (``restore_stash`` puts the values back), so
    no later expansion reads a placeholder out of a value."""

    def keep(value: str) -> str:
        if stash is None:
            return value
        stash.append(value)
        return f"\x02{len(stash) - 1}\x03"

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
            line = whole["indent"] + keep(
                text.rstrip("\n").replace("\n", "\n" + whole["indent"])
            )
        lines.append(line)
    markdown = substitute_in_prose(
        INSERT_RE, lambda m: keep(replace(m)), "\n".join(lines)
    )
    return substitute_in_prose(FACT_RE, lambda m: keep(replace_fact(m)), markdown)


def restore_stash(markdown: str, stash: list[str]) -> str:
    """Put the stashed values back in place of their tokens, in one pass (a
    value is never scanned for tokens or placeholders)."""
    return STASH_RE.sub(lambda m: stash[int(m[1])], markdown)


def expand_page_run_boxes(markdown: str, src: str) -> str:
    """`<!-- run: snippets/x/y.py -->` -> the "Run it yourself" box."""

    def link_for(path: str) -> str:
        return posixpath.relpath(f"src/{path}", posixpath.dirname(src) or ".")

    def output(path: str, timings=None) -> str:
        return cache().get(
            "run",
            path,
            "__main__",
            lambda: output_for(path, timings=timings),
            ("scripts/site/hooks.py", "scripts/site/run_boxes.py"),
        )

    try:
        return expand_run_boxes(
            markdown, src, link_for, _state["timings"], output=output
        )
    except RunBoxError as exc:
        raise PluginError(str(exc)) from exc


def expand_page_badges(markdown: str, src: str) -> str:
    """`<!-- badge: KIND -->` -> the evidence badge (scripts/site/badges.py)."""
    try:
        return expand_badges(markdown, src)
    except BadgeError as exc:
        raise PluginError(str(exc)) from exc


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
    _state["cache"] = BuildCache.from_environment()


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
    one_off = _state.get("command") == "build"
    _state["claims"], _state["ahead"] = prefetch.begin(
        [(f.src_uri, f.url) for f in files.documentation_pages()],
        lambda src, url: compute_page(docs_dir, src, url),
        enabled=one_off and cache().enabled,
    )
    _state["pool"], _state["site_files"] = site_files.start(
        site_files.providers_used(docs_dir, SITE_FILE_PROVIDERS),
        in_background=one_off,
        store=cache(),
        load=module_for,
    )
    return files


def compute_page(docs_dir: Path, src: str, url: str) -> None:
    """What on_page_markdown computes for a page, for the cache only: the
    same pipeline (``expand_page``), its result dropped, so every kind the
    cache keeps is warmed and a new kind cannot be left out."""
    markdown, _ = get_data((docs_dir / src).read_text(encoding="utf-8-sig"))
    expand_page(markdown, src, url, docs_dir)


def on_page_markdown(markdown: str, page, config, files, **kwargs):
    with prefetch.building(_state.get("claims"), page.file.src_uri):
        return page_markdown(markdown, page, config)


def page_markdown(markdown: str, page, config) -> str:
    page_access(page)
    return expand_page(markdown, page.file.src_uri, page.url, Path(config["docs_dir"]))


def expand_page(markdown: str, src: str, url: str, docs_dir: Path) -> str:
    """A page's Markdown with every placeholder expanded, in order."""
    try:
        placeholders.refuse_unknown(markdown, src)
    except ValueError as exc:
        raise PluginError(str(exc)) from exc
    # Every kind from the source only: see "Expansion order" above.
    stash: list[str] = []
    markdown = expand_inserts(markdown.replace("\x02", ""), src, url, stash)
    markdown = calculators.expand(markdown, src, url)
    markdown = expand_page_run_boxes(markdown, src)
    markdown = expand_page_diagrams(markdown, src)
    markdown = expand_roadmap(
        markdown, src, _state["roadmap"], docs_dir, _state["built"]
    )
    markdown = expand_glossary(markdown, src, _state["roadmap"], docs_dir)
    markdown = expand_page_badges(markdown, src)
    markdown = restore_stash(markdown, stash)
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
    prefetch.stop(_state.pop("ahead", None), _state.pop("claims", None))
    site_files.write(Path(config["site_dir"]), _state.pop("site_files", []))
    calculators.write_site(Path(config["site_dir"]))
    kernel_editor.write_site(Path(config["site_dir"]))
    if pool := _state.pop("pool", None):
        pool.join()
    store = cache()
    if _state.get("command") == "serve":
        print(
            f"hooks: build cache: {store.hits} values reused, {store.misses} computed",
            file=sys.stderr,
        )
    slow = {k: v for k, v in _state["timings"].items() if v > 1.0}
    if slow:
        summary = ", ".join(f"{k} {v:.1f} s" for k, v in sorted(slow.items()))
        print(f"hooks: slow build-time inserts: {summary}", file=sys.stderr)


def on_build_error(error, **kwargs):
    prefetch.stop(_state.pop("ahead", None), _state.pop("claims", None))
    # A failed build does not wait for its plots.
    if pool := _state.pop("pool", None):
        pool.terminate()
