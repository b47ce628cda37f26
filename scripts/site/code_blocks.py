"""Code blocks on a page: a fence that includes a snippet must be titled
with that file's path (plus `` (excerpt)`` when it does not run alone), and
each title becomes a link to the whole tested file, published at
``src/<path>`` (used by ``scripts/site/hooks.py``)."""

from __future__ import annotations

import html
import posixpath
import re
from pathlib import Path

from properdocs.exceptions import PluginError

from scripts.site.fences import fences

ROOT = Path(__file__).resolve().parents[2]
# Published at src/<path> so a page can link to the whole tested file.
SOURCE_DIRS = ("snippets", "kernels", "evidence", "scripts", "practice")
# A displayed block that does not run when pasted alone says so in its title.
EXCERPT_SUFFIX = " (excerpt)"
SNIPPET_LINE_RE = re.compile(r'^\s*-{1,}8<-{1,}\s+"(?P<target>[^"]+)"\s*$')


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
