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
        title = html.unescape(match["title"]) if match["title"] else None
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


# Runs each block alone: a fresh globals dict named __main__, a fresh empty
# directory as the working directory, output swallowed. One interpreter for
# all blocks, so torch is imported once, not once per block.
RUNNER = """
import contextlib, io, json, os, sys, tempfile, time, traceback
blocks = json.load(sys.stdin)
failures, seconds = {}, {}
for key, code in blocks:
    os.chdir(tempfile.mkdtemp(prefix="pasted-"))
    started = time.perf_counter()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, key, "exec"), {"__name__": "__main__"})
    except SystemExit as exc:
        if exc.code not in (0, None):
            failures[key] = f"exited with {exc.code!r}"
    except BaseException:
        failures[key] = traceback.format_exc(limit=-3)[-1500:]
    seconds[key] = time.perf_counter() - started
print(json.dumps({"failures": failures, "seconds": seconds}))
"""


def run_blocks(blocks: list[Block], workdir: Path) -> dict:
    """{"failures": {where: traceback}, "seconds": {where: s}} for the blocks,
    run in one fresh interpreter started in workdir (an empty folder)."""
    payload = json.dumps([(b.where, b.code) for b in blocks])
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
