"""The code blocks a built page displays, read back from its HTML, and a runner
that executes Python blocks as a reader would paste them: each alone, in a
fresh namespace, in an empty directory, with the project's interpreter.
Imported by the site tests; not a test module itself."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

BLOCK_RE = re.compile(
    r'<div class="language-(?P<lang>[\w+-]+) highlight">'
    r'(?:<span class="filename">(?P<title>.*?)</span>)?'
    r"<pre>(?P<pre>.*?)</pre>",
    re.S,
)
TAG_RE = re.compile(r"<[^>]+>")
PYTHON_LANGS = {"python", "py", "python3"}
EXCERPT_SUFFIX = " (excerpt)"


class Block(NamedTuple):
    page: str  # the page's folder in the site, e.g. "kernels/x/y"
    index: int  # 1-based among the page's displayed blocks
    lang: str
    title: str | None
    code: str

    @property
    def where(self) -> str:
        return (
            f"{self.page or '(home)'} block {self.index} ({self.title or 'untitled'})"
        )


def page_blocks(page_html: str, page: str) -> list[Block]:
    """Every highlighted code block the page shows, its text as copied."""
    blocks = []
    for index, match in enumerate(BLOCK_RE.finditer(page_html), start=1):
        code = html.unescape(TAG_RE.sub("", match["pre"]))
        title = (
            html.unescape(TAG_RE.sub("", match["title"])) if match["title"] else None
        )
        blocks.append(Block(page, index, match["lang"], title, code))
    return blocks


def site_blocks(site: Path) -> list[Block]:
    found = []
    for path in sorted(site.rglob("index.html")):
        rel = path.parent.relative_to(site).as_posix()
        if rel.startswith(("src/", "search")) or rel == "404":
            continue
        found.extend(page_blocks(path.read_text(encoding="utf-8"), rel))
    return found


def is_excerpt(block: Block) -> bool:
    return bool(block.title and block.title.endswith(EXCERPT_SUFFIX))


def excerpt_source(block: Block) -> str:
    """The file an excerpt's title names (the title less ' (excerpt)')."""
    return (block.title or "").removesuffix(EXCERPT_SUFFIX)


# Runs each block alone, three ways a reader would: as a script (a fresh
# globals dict named __main__, a fresh empty directory as the working
# directory, output swallowed); pasted line by line into the interactive
# prompt (`code.InteractiveConsole` reads lines as `python -i` does, so a
# blank line inside an indented body ends it early); and, after the script
# run, each call the page itself makes of the block's functions. One
# interpreter for all blocks, so torch is imported once, not once per block.
RUNNER = """
import code, contextlib, io, json, os, sys, tempfile, time, traceback
blocks = json.load(sys.stdin)
failures, seconds = {}, {}


class Prompt(code.InteractiveConsole):
    def __init__(self):
        super().__init__({"__name__": "__main__"})
        self.errors = []

    def write(self, data):
        self.errors.append(data)


def paste(source):
    prompt = Prompt()
    with contextlib.redirect_stdout(io.StringIO()):
        for line in source.splitlines():
            prompt.push(line)
        prompt.push("")
    text = "".join(prompt.errors)
    return text if ("Error" in text or "Traceback" in text) else ""


for key, source, calls in blocks:
    os.chdir(tempfile.mkdtemp(prefix="pasted-"))
    started = time.perf_counter()
    namespace = {"__name__": "__main__"}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, key, "exec"), namespace)
            for call in calls:
                try:
                    eval(call, namespace)
                except BaseException as exc:
                    raise RuntimeError(f"the page's call {call} failed") from exc
    except SystemExit as exc:
        if exc.code not in (0, None):
            failures[key] = f"exited with {exc.code!r}"
    except BaseException:
        failures[key] = traceback.format_exc(limit=-3)[-1500:]
    if key not in failures:
        os.chdir(tempfile.mkdtemp(prefix="prompt-"))
        pasted = paste(source)
        if pasted:
            failures[key] = "pasted into python -i: " + pasted[-1500:]
    seconds[key] = time.perf_counter() - started
print(json.dumps({"failures": failures, "seconds": seconds}))
"""


def undefined_names(source: str) -> dict[str, list[str]]:
    """{function: global names it uses that the block neither defines,
    imports nor gets from builtins}: calling it would raise NameError."""
    import builtins
    import symtable

    try:
        table = symtable.symtable(source, "block", "exec")
    except SyntaxError:
        return {}
    defined = {
        s.get_name()
        for s in table.get_symbols()
        if s.is_assigned() or s.is_imported() or s.is_namespace()
    }
    known = defined | set(dir(builtins)) | {"__name__", "__file__"}
    found: dict[str, list[str]] = {}

    def visit(scope, owner: str | None) -> None:
        # A comprehension's own scope reports under the function around it;
        # names from an enclosing function are free, not global, and fine.
        for child in scope.get_children():
            name = owner or child.get_name()
            missing = {
                s.get_name()
                for s in child.get_symbols()
                if s.is_global() and s.is_referenced() and s.get_name() not in known
            }
            if missing:
                found[name] = sorted(set(found.get(name, [])) | missing)
            visit(child, name)

    visit(table, None)
    return found


def run_blocks(
    blocks: list[Block], workdir: Path, calls: dict[str, list[str]] | None = None
) -> dict:
    """{"failures": {where: traceback}, "seconds": {where: s}} for the blocks,
    run in one fresh interpreter started in workdir (an empty folder); calls
    maps a block's `where` to expressions the page evaluates on it."""
    calls = calls or {}
    payload = json.dumps([(b.where, b.code, calls.get(b.where, [])) for b in blocks])
    env = dict(os.environ, TRITON_INTERPRET="1", MPLBACKEND="Agg")
    env.pop("PYTHONPATH", None)
    result = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=payload,
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])
