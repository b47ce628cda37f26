"""No string from a result file becomes markup, on any page.

A copy of the repository has every printed string of its result files
seeded with a marker that would become markup if a page printed it raw: an
HTML element with an event handler, a Markdown link and an ``attr_list``
attribute. The copy's site is built once; then every page is parsed, and the
marker may appear only in text nodes: never in a tag's name, an attribute,
a script or a style. A planted raw printer (the known-bad case) shows the
check can fail.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.helpers.shared import shared_dir
from tests.site.sitebuild import BUILD_HANG_S, QUIET, ROOT, build_errors

MARK = "ZQX"
#: What a result string becomes in the copy: ``MARK`` in a tag, an attribute
#: and a link target if any printer lets it through as markup.
SEED = f" {MARK}<img onerror={MARK}>[l]({MARK}){{#{MARK}}}"
#: (folder under results/, key) of every string a page prints as a name or a
#: message: the free text a result file's writer chooses. Keys that must match
#: something the code knows (a provider, a dtype, a status, a hash) are
#: refused on load when changed, so they cannot carry markup to a page.
SEEDED = {
    "bench": {
        "name",
        "shape_text",
        "labels",
        "note",
        "notes",
        "what",
        "compile",
        "platform",
        "python",
        "torch",
        "triton",
        "numpy",
    },
    "qualify": {
        "detail",
        "details",
        "expected_reason",
        "printed",
        "verdict",
        "inputs",
        "regime",
        "python",
        "torch",
        "triton",
    },
    "collectives": {"name", "evidence", "platform", "python", "torch"},
    "serving": {"name", "evidence", "clock", "platform"},
    "tiny_lm": {"note", "evidence", "cpu"},
    "artifacts": {"shows", "ptxas_version"},
}
#: Values a lesson looks a row up by (snippets/timing_gpu_work/timing_facts.py
#: reads the "1024×1024" row by name): left as they are.
LOOKED_UP = {"1024×1024"}
VOID = {"br", "img", "hr", "input", "meta", "link", "wbr", "source", "col"}


def seed(data: object, keys: set[str], key: str = "") -> object:
    """``data`` with SEED appended to every string under one of ``keys``."""
    if isinstance(data, str):
        return data + SEED if key in keys and data not in LOOKED_UP else data
    if isinstance(data, dict):
        return {k: seed(v, keys, k) for k, v in data.items()}
    if isinstance(data, list):
        return [seed(v, keys, key) for v in data]
    return data


def seeded_copy(dest: Path) -> int:
    """The repository's files (tracked and untracked, not ignored) copied to
    ``dest`` with its result files seeded; the number of files seeded."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    for link in ("node_modules",):
        if (ROOT / link).exists():
            (dest / link).symlink_to((ROOT / link).resolve())
    if (ROOT / ".cache" / "site-build").is_dir():  # pages whose inputs match
        shutil.copytree(ROOT / ".cache" / "site-build", dest / ".cache" / "site-build")
    count = 0
    for path in sorted((dest / "results").rglob("*.json")):
        folder = path.relative_to(dest / "results").parts[0]
        keys = SEEDED.get(folder, set())
        if keys:
            data = json.loads(path.read_text("utf-8"))
            path.write_text(json.dumps(seed(data, keys), indent=1), "utf-8")
            count += 1
    return count


class MarkupFinder(HTMLParser):
    """Where MARK sits in a page: in markup (a tag, an attribute, a script
    or a style) or in text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.in_markup: list[str] = []
        self.in_text = 0

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if MARK.lower() in f"{name}={value}".lower():
                self.in_markup.append(f"<{tag} {name}={value!r}>")
        if MARK.lower() in tag.lower():
            self.in_markup.append(f"<{tag}>")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop() == tag:
                break

    def handle_data(self, data):
        if MARK in data:
            if {"script", "style"} & set(self.stack):
                self.in_markup.append(f"<{self.stack[-1]}> {data.strip()[:80]}")
            else:
                self.in_text += data.count(MARK)


def marker_places(site: Path) -> tuple[dict[str, list[str]], int]:
    """({page: MARK in markup}, pages where MARK is shown as text)."""
    found, shown = {}, 0
    for page in sorted(site.rglob("*.html")):
        text = page.read_text("utf-8")
        if MARK not in text:
            continue
        finder = MarkupFinder()
        finder.feed(text)
        if finder.in_markup:
            found[page.relative_to(site).as_posix()] = finder.in_markup
        shown += finder.in_text > 0
    return found, shown


@pytest.fixture(scope="session")
def seeded_site(tmp_path_factory) -> Path:
    """The site built from a copy of the repository with seeded results
    (once per session, under the shared folder)."""
    root = shared_dir(tmp_path_factory) / "seeded"
    site = root / "site"
    if not (root / "built").exists():
        shutil.rmtree(root, ignore_errors=True)
        copy = root / "repo"
        copy.mkdir(parents=True)
        assert seeded_copy(copy) > 10
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "properdocs",
                "build",
                "--strict",
                "-q",
                "-f",
                str(copy / "mkdocs.yml"),
                "-d",
                str(site),
            ],
            cwd=copy,
            capture_output=True,
            text=True,
            timeout=BUILD_HANG_S,  # a hang guard only
            env={**__import__("os").environ, **QUIET, "PYTHONPATH": str(copy)},
        )
        if result.returncode != 0:
            pytest.fail(f"seeded build failed:\n{build_errors(result)}")
        (root / "built").touch()
    return site


def test_no_result_string_becomes_markup(seeded_site):
    found, shown = marker_places(seeded_site)
    assert shown >= 5, f"the marker reached only {shown} pages: seeding is broken"
    assert not found, "result strings printed as markup:\n" + "\n".join(
        f"{page}: {', '.join(places[:3])}" for page, places in found.items()
    )


@pytest.mark.parametrize(
    "html, bad",
    [
        (f"<p>{MARK}&lt;img src=x onerror={MARK}&gt;</p>", False),
        (f"<p>x<img src=x onerror={MARK}></p>", True),
        (f'<p><a href="{MARK}">l</a></p>', True),
        (f'<h2 id="{MARK}">t</h2>', True),
        (f"<script>var a = '{MARK}';</script>", True),
    ],
    ids=["escaped", "live-img", "live-link", "live-attr-list", "in-script"],
)
def test_the_finder_tells_text_from_markup(tmp_path, html, bad):
    (tmp_path / "index.html").write_text(f"<html><body>{html}</body></html>")
    found, _ = marker_places(tmp_path)
    assert bool(found) is bad
