"""The built site in a real browser: headless Chromium (Debian's package,
driven by Playwright) against the site served on 127.0.0.1."""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.site.sitebuild import ROOT

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
LESSON = "kernels/where-time-goes/connect-kernel-work-to-the-service/"
LESSON_TITLE = "Connect kernel work to the service"
SNIPPET = ROOT / "snippets/connect_kernel_work_to_the_service/amdahl.py"
FIRST_SECTION = "overall-speedup"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def browser_available() -> bool:
    return Path(CHROMIUM).exists() or shutil.which("chromium") is not None


@pytest.fixture(scope="module")
def server(built_site):
    handler = functools.partial(QuietHandler, directory=str(built_site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser():
    if not browser_available():
        if os.environ.get("CI") == "true":
            pytest.fail(f"no Chromium at {CHROMIUM}: CI must install it (.ci/run)")
        pytest.skip(f"no Chromium at {CHROMIUM}; install Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


class Visit:
    """One browser context that records console errors and every request."""

    def __init__(self, browser, base_url: str):
        self.context = browser.new_context()
        self.context.grant_permissions(
            ["clipboard-read", "clipboard-write"], origin=base_url.rstrip("/")
        )
        self.errors: list[str] = []
        self.external: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on(
            "console",
            lambda msg: msg.type == "error" and self.errors.append(msg.text),
        )
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def _route(self, route):
        host = urlparse(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host == "127.0.0.1":
            route.continue_()
        else:
            self.external.append(route.request.url)
            route.abort()

    def close(self):
        self.context.close()


@pytest.fixture
def visit(browser, server):
    session = Visit(browser, server)
    yield session
    session.close()


def section_text(path: Path, name: str) -> str:
    text = path.read_text(encoding="utf-8")
    match = re.search(
        rf"# --8<-- \[start:{name}\]\n(.*?)# --8<-- \[end:{name}\]", text, re.S
    )
    assert match, f"{path}: no section {name}"
    return match.group(1)


def test_search_finds_the_exemplar_lesson(visit, server):
    page = visit.page
    page.goto(server)
    page.locator("input.md-search__input").click()
    page.keyboard.type("Amdahl", delay=30)
    results = page.locator(".md-search-result__item")
    results.first.wait_for(timeout=15000)
    assert LESSON_TITLE in page.locator(".md-search-result").inner_text()
    assert not visit.errors, visit.errors
    assert not visit.external, visit.external


def test_copy_button_copies_exactly_the_snippet(visit, server):
    page = visit.page
    page.goto(server + LESSON)
    title = SNIPPET.relative_to(ROOT).as_posix()
    block = (
        page.locator(".md-typeset .highlight")
        .filter(has=page.locator(".filename", has_text=title))
        .first
    )
    block.hover()
    block.locator('button[data-md-type="copy"], button.md-clipboard').first.click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.rstrip("\n") == section_text(SNIPPET, FIRST_SECTION).rstrip("\n")
    assert not visit.errors, visit.errors


def test_access_badge_shows_under_the_heading(visit, server):
    page = visit.page
    page.goto(server + LESSON)
    badge = page.locator("article .access-line .access-badge")
    assert badge.is_visible()
    assert badge.inner_text().strip() == "Free"
    page.goto(server)
    assert page.locator("table .access-badge").count() > 0


def test_pages_load_without_console_errors_or_external_requests(
    visit, server, built_site
):
    pages = [""] + sorted(
        p.parent.relative_to(built_site).as_posix() + "/"
        for p in built_site.glob("*/**/index.html")
    )
    for url in pages:
        visit.page.goto(server + url, wait_until="load")
    assert not visit.errors, visit.errors
    assert not visit.external, visit.external
