"""The calculators' two budgets, timed in Debian's Chromium (Playwright):
the first Run of a visit (Pyodide loads) and the first Run on a second page
reached by a link (Material's instant navigation keeps Pyodide).

Used by ``scripts.bench.site``; both figures come from one visit, timed once
and kept on the context for the second budget.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
import time
from pathlib import Path

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
    "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]  # fmt: skip
CLICK_RUN = """el => { const runs = Number(el.dataset.runs || 0);
  el.querySelector("button").click(); return runs; }"""
RAN = "([el, runs]) => Number(el.dataset.runs || 0) > runs"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a built site without logging; a page left mid-download (the
    next goto) is not an error."""

    def log_message(self, *args):
        pass

    def handle(self):
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass


def calculator_pages(site: Path) -> list[str]:
    """Pages of the built site with a calculator, as URL paths."""
    found = []
    for page in sorted(site.rglob("index.html")):
        if "data-calculator" in page.read_text("utf-8", errors="replace"):
            rel = page.parent.relative_to(site).as_posix()
            found.append("" if rel == "." else rel + "/")
    return found


def _timed_run(page, limit_s: float) -> float:
    element = page.locator("[data-calculator]").first
    element.wait_for(timeout=limit_s * 1000)
    started = time.perf_counter()
    runs = element.evaluate(CLICK_RUN)
    page.wait_for_function(
        RAN, arg=[element.element_handle(), runs], timeout=limit_s * 1000
    )
    return time.perf_counter() - started


def _visit(browser, base: str, pages: list[str], limit_s: float) -> dict:
    context = browser.new_context(viewport={"width": 1280, "height": 800})

    def sitemap_here(route):  # instant navigation wants this server's URLs
        response = route.fetch()
        text = re.sub(r"<loc>https?://[^/<]+/", f"<loc>{base}", response.text())
        route.fulfill(response=response, body=text)

    context.route("**/sitemap.xml", sitemap_here)
    page = context.new_page()
    try:
        page.goto(base + pages[0], wait_until="load")
        first = _timed_run(page, limit_s)
        page.evaluate("window.__sameVisit = true")
        page.locator("article").first.evaluate(
            "(a, href) => { const l = document.createElement('a'); l.href = href;"
            " l.id = 'bench-next'; l.textContent = 'next'; a.prepend(l); }",
            base + pages[1],
        )
        page.locator("#bench-next").click()
        page.wait_for_url(base + pages[1])
        second = _timed_run(page, limit_s)
        same = page.evaluate("window.__sameVisit === true")
    finally:
        context.close()
    return {"first": first, "second": second, "same_visit": same}


def calculator_runs(ctx, limit_s: float) -> dict:
    """{"first": s, "second": s}, timed once per context."""
    from scripts.bench.site import Failed, Skip, warm_rebuild

    if getattr(ctx, "calculator_runs", None):
        return ctx.calculator_runs
    if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
        raise Skip(f"no Chromium at {CHROMIUM} (Debian's package chromium)")
    if not (ctx.site / "index.html").is_file():
        warm_rebuild(ctx, limit_s)  # the site to serve, untimed here
    pages = calculator_pages(ctx.site)
    if len(pages) < 2:
        raise Skip("fewer than two pages with a calculator")
    from playwright.sync_api import Error, sync_playwright

    handler = functools.partial(QuietHandler, directory=str(ctx.site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS
            )
            try:
                found = _visit(browser, base, pages, limit_s)
            finally:
                browser.close()
    except Error as exc:
        raise Failed(f"browser: {str(exc).splitlines()[0][:200]}") from None
    finally:
        httpd.shutdown()
    if not found["same_visit"]:
        raise Failed("the link reloaded the page: Pyodide restarted")
    ctx.calculator_runs = found
    return found
