"""The built site in a real browser: headless Chromium (Debian's package,
driven by Playwright, never a downloaded browser) against the site served on
127.0.0.1.

To keep the whole module within seconds, one fixture (``survey``) visits each
page once, in one browser context, moving between pages by the site's instant
navigation as a reader's clicks do (a page with scripts of its own is loaded
in full), and records what every check needs: at
desktop width (1280 px) and, after a resize, at phone width (360 px). Then,
on the first page with calculators, it runs every calculator of the site
(each copied from its own page) against the Python function it names, and
searches for each glossary term. The tests read what it found: no console
errors, no request off the host, no Pyodide before a Run, no sideways
overflow of the main column, plot text at least 10 px on a phone, copy
buttons copying the code they sit on, calculators answering as Python does.
"""

from __future__ import annotations

import functools
import html
import http.server
import importlib
import os
import random
import re
import shutil
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Error as PlaywrightError

from scripts.bench.site_browser import CHROMIUM, CHROMIUM_ARGS, QuietHandler
from scripts.site.glossary import load_terms
from tests.helpers.shared import once_per_session
from tests.site.sitebuild import ROOT

pytestmark = pytest.mark.browser

LESSON = "kernels/where-time-goes/connect-kernel-work-to-the-service/"
LESSON_TITLE = "Connect kernel work to the service"
SNIPPET = ROOT / "snippets/lib/amdahl.py"
FIRST_SECTION = "overall-speedup"
GLOSSARY = "reference/glossary/"
# Terms a reader searches for, and the lesson whose heading teaches each.
TAUGHT_AT = {
    "split-k": "kernels/work-mapping/layouts-strides-offsets/",
    "Stream-K": "kernels/work-mapping/layouts-strides-offsets/",
    "register spill": "kernels/work-mapping/the-kernel-that-actually-runs/",
}
# Issue 47: the field's words, each with the page that must rank first:
# hyphenated terms, both spellings, and terms whose words also fill the
# glossary and interview pages (lessons rank above those).
RANKS_FIRST = {
    "all-reduce": "foundations/beyond-one-gpu/collectives-and-their-cost/",
    "allreduce": "foundations/beyond-one-gpu/collectives-and-their-cost/",
    "all reduce": "foundations/beyond-one-gpu/collectives-and-their-cost/",
    "NCCL": "foundations/beyond-one-gpu/collectives-and-their-cost/",
    "split-K": "kernels/work-mapping/layouts-strides-offsets/",
    "Stream-K": "kernels/work-mapping/layouts-strides-offsets/",
    "warp specialization": "kernels/frontier/warp-specialisation/",
    "warp specialisation": "kernels/frontier/warp-specialisation/",
    "occupancy": "kernels/work-mapping/threads-blocks-warps-waves/",
    "bank conflict": "kernels/memory-bound/transpose-and-coalescing/",
    "coalescing": "kernels/memory-bound/transpose-and-coalescing/",
    "speculative decoding": "inference/speculative-decoding/",
    "chunked prefill": "inference/prefix-caching-and-chunked-prefill/",
    "prefix caching": "inference/prefix-caching-and-chunked-prefill/",
    "FP8": "kernels/matrix-multiplication/fp8-on-tensor-cores/",
    "quantization": "inference/quantisation-for-inference/",
    "quantisation": "inference/quantisation-for-inference/",
    "online softmax": "kernels/attention/online-softmax/",
    "flash attention": "kernels/attention/flash-attention-forward/",
    "wgmma": "kernels/matrix-multiplication/hopper-tensor-cores/",
    "tiled matmul": "kernels/matrix-multiplication/tiled-matmul/",
    "KV cache": "inference/kv-cache-management/",
    "GQA": "inference/kv-levers-gqa-mla/",
    "paged attention": "inference/kv-cache-management/",
    "disaggregated prefill": "inference/disaggregated-prefill-and-decode/",
    "continuous batching": "inference/batching/",
    "torch.compile": "kernels/to-the-service/when-torch-compile-is-enough/",
    "autotuning": "kernels/to-the-service/autotuning-honestly/",
    "compute sanitizer": "kernels/correctness/compute-sanitizer/",
    "racecheck": "kernels/correctness/compute-sanitizer/",
    "register spill": "kernels/work-mapping/the-kernel-that-actually-runs/",
    "deterministic reduction": "kernels/memory-bound/deterministic-reductions/",
    "decoupled look-back": "kernels/attention/prefix-scans-across-blocks/",
    "expert parallelism": "foundations/beyond-one-gpu/parallelism-budgets/",
    "pipeline bubble": "foundations/beyond-one-gpu/parallelism-budgets/",
    "gradient bucket": "foundations/beyond-one-gpu/overlapping-communication/",
    "CUDA events": "kernels/where-time-goes/timing-gpu-work/",
    "fusion": "kernels/memory-bound/fusion-residual-add-relu/",
    "backward kernel": "kernels/frontier/backward-kernel/",
    "Little's law": "inference/capacity-planning/",
    "MFU": "foundations/whole-model-roofline/",
    "TTFT": "inference/request-latency/",
    "swizzle": "kernels/matrix-multiplication/tiled-matmul/",
    "tensor memory": "kernels/frontier/warp-specialisation/",
}
SEARCH_WORKER = "**/assets/javascripts/workers/search.*.min.js"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
MIN_PLOT_TEXT_PX = 10.0
# WCAG's ratio for large text and graphics: the least a diagram's text may
# have against the page's background, in either scheme.
MIN_TEXT_CONTRAST = 3.0
SCHEMES = ("default", "slate")
# A second page's first Run, after one on an earlier page of the same visit
# (instant navigation keeps Pyodide loaded), and the first Run of a visit:
# their budgets (1 s and 4 s) are make bench-site's to measure; these limits
# only catch a hang, at thirty times each (a first Run took 30 s once on a
# 2-core machine running eleven processes' worth of work).
SECOND_PAGE_RUN_HANG_S = 30.0
FIRST_VISIT_RUN_TARGET_S = 4.0
VALID_TRIALS = 3
INVALID_CANDIDATES = (-1, 0)
FIRST_RUN_HANG_S = 30 * FIRST_VISIT_RUN_TARGET_S
# Any other wait of the browser (a load, a click, a calculator's answer):
# Playwright's default of 30 s is a coin toss on a machine with five times
# its cores' worth of work; this only catches a hang.
WAIT_HANG_MS = 300_000


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


#: Any URL but the local server's and inline data: what the site must never
#: ask for (matched in the browser's driver, not in Python).
OFF_HOST = re.compile(r"^(?!(https?://127\.0\.0\.1[:/]|data:|blob:))")


class Visit:
    """One browser context that records console errors and every request."""

    def __init__(self, browser, base_url: str, viewport: dict = DESKTOP):
        self.context = browser.new_context(viewport=viewport)
        self.context.set_default_timeout(WAIT_HANG_MS)
        self.context.set_default_navigation_timeout(WAIT_HANG_MS)
        self.context.grant_permissions(
            ["clipboard-read", "clipboard-write"], origin=base_url.rstrip("/")
        )
        self.errors: list[str] = []
        self.external: list[str] = []
        self.requests: list[str] = []
        # Requests are recorded from events and only off-host ones routed:
        # routing every request made each one wait on a round trip to Python.
        self.context.on("request", self._record)
        self.context.route(OFF_HOST, self._refuse)
        self.page = self.context.new_page()
        self.page.on(
            "console",
            lambda msg: msg.type == "error" and self.errors.append(msg.text),
        )
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def _record(self, request):
        self.requests.append(request.url)

    def _refuse(self, route):
        self.external.append(route.request.url)
        route.abort()

    def close(self):
        self.context.close()


def section_text(path: Path, name: str) -> str:
    text = path.read_text(encoding="utf-8")
    match = re.search(
        rf"# --8<-- \[start:{name}\]\n(.*?)# --8<-- \[end:{name}\]", text, re.S
    )
    assert match, f"{path}: no section {name}"
    return match.group(1)


def site_pages(built_site: Path) -> list[str]:
    """Every page's URL path, the home page first."""
    return [""] + sorted(
        p.parent.relative_to(built_site).as_posix() + "/"
        for p in built_site.glob("*/**/index.html")
        if "assets" not in p.parts
    )


# --------------------------------------------------------------------------
# What the survey measures on each page (JavaScript run in the page)
# --------------------------------------------------------------------------

# The main column (not the header: Material's search box slides in after a
# resize) must fit the window and hold its content without sideways scroll.
OVERFLOW_JS = """() => {
  const found = [];
  const main = document.querySelector(".md-content");
  if (!main) return found;
  const right = main.getBoundingClientRect().right;
  const width = document.documentElement.clientWidth;
  if (right > width + 1)
    found.push(`the main column ends past the window (${right} > ${width} px)`);
  if (main.scrollWidth > main.clientWidth + 1)
    found.push(`the main column overflows (${main.scrollWidth} > `
      + `${main.clientWidth} px)`);
  return found;
}"""

WIDE_TABLES_JS = """() => [...document.querySelectorAll(
    ".md-content .md-typeset__scrollwrap")]
  .filter(w => w.scrollWidth > w.clientWidth + 1)
  .map(w => `a table scrolls (${w.scrollWidth} > ${w.clientWidth} px), first `
    + `header: ${(w.querySelector("th") || w).textContent.trim().slice(0, 40)}`)"""

# Code blocks wider than their box at 1280 px (issue 47: code that fits),
# and top-bar tabs cut off or hidden at that width.
WIDE_CODE_JS = """() => [...document.querySelectorAll(".md-content pre > code")]
  .filter(c => c.scrollWidth > c.clientWidth + 1)
  .map(c => `a code block scrolls (${c.scrollWidth} > ${c.clientWidth} px): `
    + (c.textContent.split("\\n").sort((a, b) => b.length - a.length)[0] || "")
      .slice(0, 60))"""

TABS_JS = """() => {
  const bar = document.querySelector(".md-tabs__list");
  if (!bar) return [];
  const right = Math.min(bar.getBoundingClientRect().right,
    document.documentElement.clientWidth);
  return [...bar.querySelectorAll(".md-tabs__item")]
    .filter(t => t.getBoundingClientRect().right > right + 1)
    .map(t => `the tab "${t.textContent.trim()}" is cut off or hidden`);
}"""

# A benchmark plot wider than a phone's column must say it scrolls.
PLOT_NOTICE_JS = """() => [...document.querySelectorAll(
    ".md-content figure.bench-plot")]
  .filter(f => f.scrollWidth > f.clientWidth + 1 && !f.classList.contains("scrolls"))
  .map(f => "a benchmark plot scrolls sideways with no notice")"""

# The diagrams that must fit a 390 px phone's column without scrolling
# (issue 32, item 4): each page and the start of its figure's alt text.
PHONE_FIT = {
    "kernels/where-time-goes/napkin-math-and-the-roofline/": "The H200 roofline",
    "foundations/inference-budgets/": "Log-log roofline",
    "kernels/matrix-multiplication/hopper-tensor-cores/": "A 128 by 256",
    "kernels/work-mapping/threads-blocks-warps-waves/": "A grid of 140 blocks",
    "foundations/memory-budgets-for-training/": "Stacked bars",
}
# Every diagram at the current width: the start of its alt text, and how it
# scrolls sideways ("" when it fits).
PHONE_DIAGRAMS_JS = """() => [...document.querySelectorAll(
    ".md-content figure.diagram")].map(f => [
  ((f.querySelector("svg") || f).getAttribute("aria-label") || "").slice(0, 40),
  f.scrollWidth > f.clientWidth + 1
    ? `scrolls (${f.scrollWidth} > ${f.clientWidth} px)` : ""])"""

# Rendered size of every text in a plot or diagram: its font size in the
# SVG's units times the scale the page draws it at. An <img> of an SVG is
# measured on a copy of the file drawn at the image's width.
PLOT_TEXT_JS = """async (limit) => {
  const small = [];
  const measure = (svg, where) => {
    let count = 0, least = Infinity, example = "";
    for (const t of svg.querySelectorAll("text")) {
      const text = t.textContent.trim();
      if (!text) continue;
      const m = t.getScreenCTM();
      const scale = m ? Math.hypot(m.a, m.b) : 1;
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (px >= limit) continue;
      count += 1;
      if (px < least) [least, example] = [px, text.slice(0, 30)];
    }
    if (count)
      small.push(`${where}: ${count} texts under ${limit} px, the smallest `
        + `${least.toFixed(1)} px ("${example}")`);
  };
  document.querySelectorAll(".md-content svg[role=img], .md-content figure svg")
    .forEach((svg, i) => measure(svg, `inline diagram ${i + 1}`));
  for (const img of document.querySelectorAll('.md-content img[src$=".svg"]')) {
    const source = await (await fetch(img.src)).text();
    const holder = document.createElement("div");
    holder.style.cssText = "position:absolute;left:-20000px;top:0;visibility:hidden";
    holder.innerHTML = source.slice(source.indexOf("<svg"));
    const svg = holder.querySelector("svg");
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.style.width = img.getBoundingClientRect().width + "px";
    document.body.appendChild(holder);
    measure(svg, img.getAttribute("src"));
    holder.remove();
  }
  return small;
}"""

# Search for one term through the search box, as a reader types it; resolve
# with the result links once the results for this query are drawn.
SEARCH_JS = """(term) => new Promise(resolve => {
  const input = document.querySelector(".md-search__input");
  const list = document.querySelector(".md-search-result__list");
  const meta = document.querySelector(".md-search-result__meta");
  const finish = () => {
    observer.disconnect();
    clearTimeout(timer);
    resolve([...list.querySelectorAll("a")].map(a => a.getAttribute("href")));
  };
  const observer = new MutationObserver(() => {
    if (list.children.length || /No matching/i.test(meta.textContent)) finish();
  });
  const timer = setTimeout(finish, 3000);
  observer.observe(list, {childList: true, subtree: true});
  observer.observe(meta, {childList: true, characterData: true, subtree: true});
  list.replaceChildren();
  input.value = term;
  input.dispatchEvent(new KeyboardEvent("keyup", {bubbles: true}));
})"""

FIELDS_JS = """el => [...el.querySelectorAll("input[name]")].map(i => [
  i.name,
  i.dataset.kind,
  i.type === "checkbox" ? String(i.checked) : i.value,
])"""

# Every diagram's text in the current colour scheme: its fill against the
# page's background (WCAG contrast), and its box inside the drawing (text
# outside the viewBox is clipped away). And whether it draws anything a
# reader can see: a drawing of nonzero size with at least one mark (a
# shape's stroke or fill, or a text) at that contrast; a diagram that is
# blank in one scheme (dark strokes on the dark page) fails here, without
# the screenshot each diagram once cost (DIAGRAM_SCREENSHOTS still takes
# them, for a person to look at).
DIAGRAM_JS = """(minContrast) => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).slice(0, 4).map(Number);
  const lum = ([r, g, b]) => {
    const c = [r, g, b].map(v => v / 255)
      .map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  let background = rgb(getComputedStyle(document.body).backgroundColor);
  if (background.length === 4 && background[3] === 0)
    background = rgb(getComputedStyle(document.documentElement).backgroundColor);
  if (!background.length || (background.length === 4 && background[3] === 0))
    background = [255, 255, 255];
  const found = [];
  document.querySelectorAll(".md-content figure.diagram svg").forEach((svg, i) => {
    const box = svg.getBoundingClientRect();
    let faint = 0, clipped = 0, example = "";
    for (const t of svg.querySelectorAll("text")) {
      const text = t.textContent.trim();
      if (!text) continue;
      const style = getComputedStyle(t);
      const fill = rgb(style.fill);
      const alpha = parseFloat(style.fillOpacity || "1")
        * parseFloat(style.opacity || "1");
      if (!fill.length || alpha < 0.5 || ratio(fill, background) < minContrast) {
        faint += 1; example = example || `"${text.slice(0, 24)}" (${style.fill})`;
      }
      const r = t.getBoundingClientRect();
      if (r.width && (r.left < box.left - 1 || r.right > box.right + 1
          || r.top < box.top - 1 || r.bottom > box.bottom + 1)) {
        clipped += 1; example = example || `"${text.slice(0, 24)}" outside the drawing`;
      }
    }
    const visible = (colour, opacity) => {
      const c = rgb(colour);
      return c.length >= 3 && (c.length < 4 || c[3] > 0) && opacity >= 0.5
        && ratio(c, background) >= minContrast;
    };
    const marked = box.width > 0 && box.height > 0
      && [...svg.querySelectorAll(
        "path, rect, line, polyline, polygon, circle, ellipse, text")].some(m => {
        const r = m.getBoundingClientRect();
        if (!r.width && !r.height) return false;
        const style = getComputedStyle(m);
        const opacity = parseFloat(style.opacity || "1");
        const stroked = style.stroke !== "none" && parseFloat(style.strokeWidth) > 0;
        return (style.fill !== "none" && visible(style.fill,
            opacity * parseFloat(style.fillOpacity || "1")))
          || (stroked && visible(style.stroke,
            opacity * parseFloat(style.strokeOpacity || "1")));
      });
    const where = `diagram ${i + 1}`;
    if (!marked) found.push(`${where}: nothing in it stands out from the background`);
    if (faint) found.push(
      `${where}: ${faint} texts below ${minContrast}:1 contrast, e.g. ${example}`);
    if (clipped) found.push(`${where}: ${clipped} texts clipped, e.g. ${example}`);
  });
  return found;
}"""

# What a reader sees before opening anything: no exercise answer and no
# run box's output open, and no raw Markdown (table pipes, bold stars) in
# rendered text outside code.
READING_JS = """() => {
  const found = [];
  for (const d of document.querySelectorAll(".md-content details")) {
    const summary = (d.querySelector("summary") || d).textContent.trim();
    if (d.open && (d.classList.contains("success") || summary === "What it prints"))
      found.push(`"${summary}" is open before the reader opens it`);
  }
  // An over-indented table becomes a code block with no language.
  for (const code of document.querySelectorAll(".md-content pre > code:not([class])"))
    if (/\\|\\s*:?-{3,}:?\\s*\\|/.test(code.textContent))
      found.push(`a Markdown table shown as code: "${code.textContent.slice(0, 40)}"`);
  const walker = document.createTreeWalker(
    document.querySelector(".md-content") || document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.parentElement.closest(
      "pre, code, script, style, svg, .highlight, .jp-InputArea")) continue;
    const text = n.textContent;
    if (/\\|\\s*:?-{3,}:?\\s*\\|/.test(text) || /\\*\\*\\S[^*]*\\*\\*/.test(text))
      found.push(`raw Markdown: "${text.trim().slice(0, 50)}"`);
  }
  return found;
}"""

# Each width's checks in one call: a round trip to the page per check and
# page was a good share of the survey's time.
DESKTOP_CHECKS_JS = f"""() => ({{
  overflow: ({OVERFLOW_JS})(),
  tables: ({WIDE_TABLES_JS})(),
  reading: ({READING_JS})(),
  wide_code: ({WIDE_CODE_JS})(),
}})"""
PHONE_CHECKS_JS = f"""async (limit) => ({{
  overflow: ({OVERFLOW_JS})(),
  plot_text: await ({PLOT_TEXT_JS})(limit),
  plot_notice: ({PLOT_NOTICE_JS})(),
  phone_diagrams: ({PHONE_DIAGRAMS_JS})(),
}})"""
# Copy buttons pressed as a reader presses them (a click, which Material
# answers by copying the block's text), the copied text caught at the page's
# copy event instead of read back from the system clipboard (a round trip
# per button was most of its cost): the first and the last button of each
# page, after opening the page's folded blocks (a hidden block copies
# nothing, and a reader opens one before copying from it). Also counted:
# code blocks that got no copy button at all.
COPY = 'button[data-md-type="copy"], button.md-clipboard'
COPY_JS = f"""() => {{
  const content = document.querySelector(".md-content");
  if (!content) return {{pressed: [], unbuttoned: 0}};
  const buttons = [...content.querySelectorAll('{COPY}')];
  const unbuttoned = [...content.querySelectorAll("pre > code")].filter(
    code => !code.parentElement.querySelector('{COPY}')).length;
  for (const d of content.querySelectorAll("details:not([open])")) d.open = true;
  let copied = null;
  const take = event => {{
    event.preventDefault();  // the system clipboard is not needed
    const active = document.activeElement;
    copied = active && active.tagName === "TEXTAREA"
      ? active.value : String(document.getSelection());
  }};
  document.addEventListener("copy", take, true);
  const pressed = [...new Set([buttons[0], buttons[buttons.length - 1]])]
    .filter(Boolean).map(button => {{
      const target = button.getAttribute("data-clipboard-target");
      const block = button.closest("pre");  // the block the button sits on
      const shown = block && block.querySelector(":scope > code");
      copied = null;
      button.click();
      return [target, shown ? shown.textContent : null, copied];
    }});
  document.removeEventListener("copy", take, true);
  return {{pressed, unbuttoned}};
}}"""
SCHEME_JS = """(scheme) => document.body.setAttribute("data-md-color-scheme", scheme)"""

RUN_JS = """(el, values) => {
  for (const [name, text] of Object.entries(values)) {
    const input = el.querySelector(`input[name="${name}"]`);
    if (input.type === "checkbox") input.checked = text === "true";
    else input.value = text;
  }
  const runs = Number(el.dataset.runs || 0);
  el.querySelector("button").click();
  return runs;
}"""


# A click on a link, as a reader moves between pages: Material's instant
# navigation fetches the page and swaps its content in, without running the
# theme's scripts again (a full load of each page was most of the survey's
# time). Resolves with the new address once the page is in place and its
# images have loaded (document$ first replays the page being left).
INSTANT_JS = """(url) => new Promise(resolve => {
  let replayed = false;
  const subscription = window.document$.subscribe(() => {
    if (!replayed) { replayed = true; return; }
    subscription.unsubscribe();
    const loading = [...document.images].filter(i => !i.complete)
      .map(i => new Promise(done => { i.onload = i.onerror = done; }));
    Promise.all(loading).then(() => resolve(location.href));
  });
  const link = document.createElement("a");
  link.href = url;
  document.querySelector(".md-content").appendChild(link);
  link.click();
})"""


def page_scripts(page: Path) -> set[str]:
    """A built page's script tags, relative paths made alike."""
    tags = re.findall(r"<script\b[^>]*>", page.read_text(encoding="utf-8"))
    return {re.sub(r"(\.\./)+", "", tag) for tag in tags}


def arrive(page, url: str, full: bool, found: dict) -> None:
    """Open `url`: a full load, or instant navigation from the page shown.
    Where Material loads the page in full instead (before it has read the
    sitemap), that load is waited for."""
    if not full:
        try:
            if page.evaluate(INSTANT_JS, url) == url:
                return
        except PlaywrightError as exc:
            if "context was destroyed" not in str(exc):
                raise
            page.wait_for_load_state("load")
            if page.url == url:
                found["full_loads"].append(url)
                return
    page.goto(url, wait_until="load")
    found["full_loads"].append(url)


def copy_problems(page, url: str, found: dict) -> list[str]:
    """Press copy buttons (COPY_JS); compare what each copied with the code
    its block displays."""
    problems = []
    checked = page.evaluate(COPY_JS)
    found["copy_pressed"] += len(checked["pressed"])
    if checked["unbuttoned"]:
        problems.append(
            f"/{url}: code blocks without a copy button: {checked['unbuttoned']}"
        )
    for target, shown, copied in checked["pressed"]:
        if shown is None or copied is None or copied.rstrip("\n") != shown.rstrip("\n"):
            problems.append(
                f"/{url} block {target}: copied {(copied or '')[:60]!r}, shows "
                f"{(shown or '')[:60]!r}"
            )
    return problems


def glossary_terms(built_site: Path) -> list[str]:
    """The glossary's terms: its second-level headings."""
    page = built_site / GLOSSARY / "index.html"
    if not page.is_file():
        return []
    text = page.read_text(encoding="utf-8")
    return [
        html.unescape(re.sub(r"<[^>]+>", "", heading)).replace("¶", "").strip()
        for heading in re.findall(r"<h2[^>]*>(.*?)</h2>", text, re.S)
    ]


# --------------------------------------------------------------------------
# Calculators: random inputs near each field's first value
# --------------------------------------------------------------------------


def calculator_function(spec: str):
    """The Python function a `data-calculator="path.py:func"` names."""
    path, func = spec.split(":")
    module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    return getattr(module, func)


def random_value(kind: str, first: str | None, rng: random.Random):
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "str":
        return first or ""
    if kind == "int":
        base = int(first) if first else 8
        return max(1, round(base * rng.uniform(0.25, 2.0)))
    base = float(first) if first else 0.5
    return float(f"{base * rng.uniform(0.5, 1.5):.4g}") if base else rng.random()


def typed(kind: str, value):
    return float(value) if kind == "float" else value


def field_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def python_gives(func, values: dict) -> tuple[str, bool]:
    """What the page should show, and whether it is an error."""
    from scripts.site.calculator_runtime import fmt_result

    try:
        return fmt_result(func.__name__, func(**values)), False
    except ValueError as exc:
        return str(exc), True


def first_value(kind: str, text: str | None):
    """A field's first value as the function receives it (None if empty)."""
    if text is None or text == "":
        return None
    if kind == "bool":
        return text == "true"
    return {"int": int, "float": float, "str": str}[kind](text)


def trials_for(spec: str, func, fields: list) -> tuple[list[dict], str | None]:
    """Inputs the function accepts: the fields' first values, then seeded
    random ones near them (drawn until Python accepts them: fields can
    constrain each other); last, one input the function rejects (a number
    field at -1 or 0). Returns them and the name of the rejected field."""
    rng = random.Random(spec)
    firsts = {name: first_value(kind, text) for name, kind, text in fields}
    trials = []
    if None not in firsts.values() and not python_gives(func, firsts)[1]:
        trials.append(firsts)
    for _ in range(200):
        if len(trials) >= VALID_TRIALS:
            break
        values = {
            name: (
                firsts[name]
                if firsts[name] is not None and rng.random() < 0.5
                else random_value(kind, text, rng)
            )
            for name, kind, text in fields
        }
        if values not in trials and not python_gives(func, values)[1]:
            trials.append(values)
    if not trials:
        return [], None
    for name, kind, _ in fields:
        if kind not in ("int", "float"):
            continue
        for bad in INVALID_CANDIDATES:
            values = {**trials[0], name: typed(kind, bad)}
            if python_gives(func, values)[1]:
                return [*trials, values], name
    return trials, None


def run_calculator(element, values: dict) -> tuple[str, bool]:
    """Fill the form, press Run, wait for the answer: (output, is error)."""
    runs = element.evaluate(RUN_JS, {k: field_text(v) for k, v in values.items()})
    element.page.wait_for_function(
        "([el, runs]) => Number(el.dataset.runs || 0) > runs",
        arg=[element.element_handle(), runs],
        timeout=WAIT_HANG_MS,
    )
    output = element.locator("[data-output]")
    error = "calculator-error" in (output.get_attribute("class") or "")
    return output.text_content(), error


def check_calculators(page, found: dict) -> None:
    """Run every calculator now in the page against its Python function."""
    elements = page.locator("[data-calculator]")
    for index in range(elements.count()):
        element = elements.nth(index)
        spec = element.get_attribute("data-calculator")
        func = calculator_function(spec)
        trials, rejected = trials_for(spec, func, element.evaluate(FIELDS_JS))
        if not trials:
            found["never_valid"].append(spec)
            continue
        if rejected is None:
            found["no_invalid"].append(spec)
        for values in trials:
            started = time.perf_counter()
            shown = run_calculator(element, values)
            if found["first_run_s"] is None:
                found["first_run_s"] = time.perf_counter() - started
            expected = python_gives(func, values)
            if shown != expected:
                found["mismatch"].append(
                    f"{spec} {values}: page shows {shown[0]!r} (error={shown[1]}),"
                    f" Python gives {expected[0]!r} (error={expected[1]})"
                )
        if rejected is not None and rejected not in expected[0]:
            found["mismatch"].append(
                f"{spec}: the error for a bad {rejected} does not name it: "
                f"{expected[0]!r}"
            )
        found["checked"].append(spec)


# --------------------------------------------------------------------------
# The survey: every page once, then calculators and search
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def survey(request, tmp_path_factory, built_site) -> dict:
    """The survey's findings, gathered once per test session: a second xdist
    worker running some of these tests reads them instead of loading every
    page again (the browser starts only where the survey runs)."""

    def gather() -> dict:
        browser = request.getfixturevalue("browser")
        server = request.getfixturevalue("server")
        return run_survey(browser, server, built_site)

    return once_per_session(tmp_path_factory, "browser-survey", gather)


def run_survey(browser, server, built_site) -> dict:
    visit = Visit(browser, server, DESKTOP)
    page = visit.page
    found: dict = {
        key: []
        for key in (
            "overflow",
            "tables",
            "plot_text",
            "copy",
            "calculator_pages",
            "calculators_html",
            "mismatch",
            "no_invalid",
            "checked",
            "search_missing",
            "predict_pages",
            "never_valid",
            "diagrams",
            "reading",
            "screenshots",
            "phone_diagrams",
            "wide_code",
            "tabs",
            "plot_notice",
        )
    }
    found["first_run_s"] = None
    found["copy_pressed"] = found["diagrams_checked"] = 0
    found["full_loads"] = []
    seconds = found["seconds"] = dict.fromkeys(
        ("load", "layout", "diagrams", "copy", "calculators", "editor", "search"),
        0.0,
    )
    shots = os.environ.get("DIAGRAM_SCREENSHOTS")
    shots = Path(shots) if shots else None
    widths = [DESKTOP, PHONE]
    # Material's search worker indexes the whole site on every page load; the
    # survey does not search, so it gets a worker that does nothing. Search
    # is tried at the end, on a page loaded with the real one.
    page.route(
        SEARCH_WORKER,
        lambda route: route.fulfill(
            body="self.onmessage = () => {};", content_type="text/javascript"
        ),
    )
    # A page with scripts of its own (a notebook's) is loaded in full, as
    # instant navigation would not run them as a fresh load does; the others
    # are reached as a reader clicking through the site reaches them.
    shared_scripts = page_scripts(built_site / "index.html")
    try:
        for url in site_pages(built_site):
            clock = time.perf_counter()
            own = page_scripts(built_site / url / "index.html") - shared_scripts
            arrive(page, server + url, url == "" or bool(own), found)
            seconds["load"] += time.perf_counter() - clock
            clock = time.perf_counter()
            # Both widths, starting with the one the last page ended at:
            # one resize a page.
            for viewport in widths:
                if page.viewport_size != viewport:
                    page.set_viewport_size(viewport)
                width = f"{viewport['width']} px"
                if viewport is DESKTOP:
                    checks = page.evaluate(DESKTOP_CHECKS_JS)
                    for key in ("tables", "reading", "wide_code"):
                        found[key].extend(f"/{url}: {p}" for p in checks[key])
                    if url == "":
                        found["tabs"] = page.evaluate(TABS_JS)
                else:
                    checks = page.evaluate(PHONE_CHECKS_JS, MIN_PLOT_TEXT_PX)
                    for key in ("plot_text", "plot_notice"):
                        found[key].extend(f"/{url}: {p}" for p in checks[key])
                    found["phone_diagrams"].extend(
                        (url, *d) for d in checks["phone_diagrams"]
                    )
                found["overflow"].extend(
                    f"/{url} at {width}: {p}" for p in checks["overflow"]
                )
                if viewport is DESKTOP:
                    # An SVG scales as a whole: what is clipped or faint at
                    # one width is so at every width, and the phone's text
                    # size is PLOT_TEXT_JS's check.
                    drawn = time.perf_counter()
                    found["diagrams"].extend(diagram_problems(page, url, shots, found))
                    seconds["diagrams"] += time.perf_counter() - drawn
                    clock += time.perf_counter() - drawn  # not counted as layout
            widths.reverse()
            seconds["layout"] += time.perf_counter() - clock
            clock = time.perf_counter()
            found["copy"].extend(copy_problems(page, url, found))
            seconds["copy"] += time.perf_counter() - clock
            if url == LESSON:
                found["badge"] = page.locator("article .access-line .access-badge")
                found["badge"] = (
                    found["badge"].inner_text().strip()
                    if found["badge"].count() == 1 and found["badge"].is_visible()
                    else None
                )
                found["lesson_copy"] = lesson_copy(page)
            if url == "":
                found["home_badges"] = page.locator("table .access-badge").count()
            if page.locator("[data-predict]").count():
                found["predict_pages"].append(url)
            calculators = page.locator("[data-calculator]")
            if calculators.count():
                found["calculator_pages"].append(url)
                found["calculators_html"].append(
                    (url, calculators.evaluate_all("els => els.map(e => e.outerHTML)"))
                )
        found["pyodide_before_run"] = [
            u for u in visit.requests if "/assets/pyodide/" in u
        ]
        found["errors_before_run"] = list(visit.errors)
        found["external"] = visit.external
        clock = time.perf_counter()
        page.set_viewport_size(DESKTOP)
        page.unroute(SEARCH_WORKER)
        calculator_pages = found["calculator_pages"]
        both = [u for u in calculator_pages if u in found["predict_pages"]]
        first = (both or calculator_pages or found["predict_pages"] or [LESSON])[0]
        # Instant navigation follows only links the sitemap lists, which names
        # pages under site_url (port 8000); this server's port is another, as
        # a reviewer's would be: the built bundle keeps the served port
        # (scripts/site/material_patches.py), so no rewrite is needed here.
        page.goto(server + first, wait_until="load")
        if found["calculator_pages"]:
            # The first Run on a real page, then every calculator of the site
            # copied into that page, so Pyodide loads once.
            others = [
                part
                for url, parts in found["calculators_html"]
                if url != first
                for part in parts
            ]
            page.locator("article").first.evaluate(
                "(article, parts) => article.insertAdjacentHTML('beforeend', "
                "parts.join(''))",
                others,
            )
            check_calculators(page, found)
        found["predictions"] = check_predictions(page)
        found["second_page"] = second_page_run(page, server, first, calculator_pages)
        seconds["calculators"] = time.perf_counter() - clock
        clock = time.perf_counter()
        found["editor"] = check_editor(page, server)
        seconds["editor"] = time.perf_counter() - clock
        clock = time.perf_counter()
        found["search"] = search_terms(
            page,
            list(
                dict.fromkeys(
                    ["Amdahl", *TAUGHT_AT, *RANKS_FIRST, *glossary_terms(built_site)]
                )
            ),
        )
        seconds["search"] = time.perf_counter() - clock
        found["errors"] = visit.errors
        print(
            f"browser survey of {len(site_pages(built_site))} pages, "
            f"{len(found['full_loads'])} loaded in full (s): "
            + ", ".join(f"{k} {v:.1f}" for k, v in seconds.items())
        )
        return found
    finally:
        visit.close()


def second_page_run(page, server: str, first: str, pages: list[str]) -> dict | None:
    """Follow a link from the page that ran calculators to another page with
    one, as a reader would (Material's instant navigation swaps the page in
    place, keeping Pyodide), and time that page's first Run."""
    others = [u for u in pages if u != first]
    if not others:
        return None
    page.evaluate("window.__sameVisit = true")
    page.locator("article").first.evaluate(
        "(article, href) => { const a = document.createElement('a');"
        " a.href = href; a.id = 'survey-next'; a.textContent = 'next';"
        " article.prepend(a); }",
        server + others[0],
    )
    page.locator("#survey-next").click()
    page.wait_for_url(server + others[0])
    element = page.locator("[data-calculator]").first
    element.wait_for()
    same_visit = page.evaluate("window.__sameVisit === true")
    started = time.perf_counter()
    runs = element.evaluate(RUN_JS, {})
    element.page.wait_for_function(
        "([el, runs]) => Number(el.dataset.runs || 0) > runs",
        arg=[element.element_handle(), runs],
        timeout=WAIT_HANG_MS,
    )
    return {
        "url": others[0],
        "seconds": time.perf_counter() - started,
        "same_visit": same_visit,
        "ok": element.get_attribute("data-ok") == "true",
    }


def diagram_problems(page, url: str, shots: Path | None, found: dict) -> list:
    """Each diagram in light and dark mode: its text's contrast and
    clipping, and something drawn that stands out (DIAGRAM_JS). With
    `shots` (DIAGRAM_SCREENSHOTS), a screenshot of each is kept there too."""
    figures = page.locator(".md-content figure.diagram")
    count = figures.count()
    if not count:
        return []
    found["diagrams_checked"] += count
    problems = []
    for scheme in SCHEMES:
        page.evaluate(SCHEME_JS, scheme)
        problems += [
            f"/{url}, {scheme}: {p}"
            for p in page.evaluate(DIAGRAM_JS, MIN_TEXT_CONTRAST)
        ]
        for index in range(count if shots else 0):
            stem = url.strip("/").replace("/", "_") or "home"
            name = f"{stem}-{index + 1}-{scheme}.jpg"
            figures.nth(index).screenshot(
                path=str(shots / name), type="jpeg", quality=60, scale="css",
                animations="disabled", caret="initial",
            )  # fmt: skip
            found["screenshots"].append(name)
    page.evaluate(SCHEME_JS, SCHEMES[0])
    return problems


EDITOR_PAGE = "kernels/practice/elementwise/"
EDITOR_EXERCISE = "vector-add"
#: The attempts checked in the editor, in order: from the starter to a pass.
EDITOR_FILES = ("starter.py", "wrong_floor_grid.py", "solution.py")


def check_editor(page, server: str) -> dict:
    """An exercise solved in the page's editor: the starter shown, then each
    of EDITOR_FILES typed and checked ((file, passed, output, seconds) each),
    and the last one still there after a reload."""
    from scripts.practice.exercises import BY_NAME

    folder = BY_NAME[EDITOR_EXERCISE].folder
    page.goto(server + EDITOR_PAGE, wait_until="load")
    editor = page.locator(f'.kernel-editor[data-exercise="{EDITOR_EXERCISE}"]')
    code = editor.locator("textarea")
    found = {"starter": code.input_value() == (folder / "starter.py").read_text()}
    found["checks"] = []
    for name in EDITOR_FILES:
        code.fill((folder / name).read_text())
        presses = editor.evaluate("el => Number(el.dataset.presses || 0)")
        clock = time.perf_counter()
        editor.locator('button[data-action="check"]').click()
        page.wait_for_function(
            "([el, n]) => Number(el.dataset.presses || 0) > n",
            arg=[editor.element_handle(), presses],
            timeout=WAIT_HANG_MS,
        )
        output = editor.locator("[data-output]").inner_text()
        passed = editor.get_attribute("data-passed")
        found["checks"].append((name, passed, output, time.perf_counter() - clock))
    page.reload(wait_until="load")
    found["kept"] = code.input_value() == (folder / EDITOR_FILES[-1]).read_text()
    return found


def check_predictions(page) -> list[tuple[str, str, str]]:
    """For each prediction on this page: a guess ten times too high first
    (what does the page say?), then one 20% high (the reveal: the answer and
    the reader's error)."""
    shown = []
    for element in page.locator("[data-predict]").all():
        answer = float(element.get_attribute("data-answer"))
        output = element.locator("[data-output]")
        element.locator("input[name=estimate]").fill(repr(answer * 10 or 10.0))
        element.locator("button").click()
        far = output.inner_text()
        element.locator("input[name=estimate]").fill(repr(answer * 1.2))
        element.locator("button").click()
        shown.append(
            (element.get_attribute("data-answer-text"), far, output.inner_text())
        )
    return shown


def lesson_copy(page) -> str | None:
    """What the copy button of the lesson's first amdahl.py block copies."""
    title = SNIPPET.relative_to(ROOT).as_posix()
    block = (
        page.locator(".md-typeset .highlight")
        .filter(has=page.locator(".filename", has_text=title))
        .first
    )
    if not block.count():
        return None
    block.hover()
    block.locator(COPY).first.click()
    return page.evaluate("navigator.clipboard.readText()")


def search_terms(page, terms: list[str]) -> dict[str, list[str]]:
    """Each term's result links, typed into the search box."""
    page.locator("input.md-search__input").click()
    page.wait_for_function("() => document.querySelector('.md-search-result__list')")
    return {term: page.evaluate(SEARCH_JS, term) for term in terms}


# --------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------


def test_an_exercise_is_solved_in_the_editor_from_its_starter(survey):
    """The starter in the editor, its failure, a wrong attempt's hint, the
    pass, and the code kept across a reload; each Check's lines are the
    grader's own messages (scripts.practice_web.page under CPython)."""
    import json

    from scripts.practice.exercises import BY_NAME
    from scripts.practice_web import page

    found = survey["editor"]
    assert found["starter"] and found["kept"], found
    folder = BY_NAME[EDITOR_EXERCISE].folder
    for name, passed, output, seconds in found["checks"]:
        report = json.loads(page.check(EDITOR_EXERCISE, (folder / name).read_text()))
        assert passed == str(report["passed"]).lower(), (name, output)
        for outcome in report["outcomes"]:
            assert outcome["message"] in output, (name, outcome)
        assert seconds < FIRST_RUN_HANG_S, f"a Check of {name} hung ({seconds:.0f} s)"
    passes = [passed for _, passed, _, _ in found["checks"]]
    assert passes == ["false", "false", "true"]
    assert "the last ones: is the grid triton.cdiv" in found["checks"][1][2]


def test_pages_load_without_console_errors_or_external_requests(survey):
    assert not survey["errors"], survey["errors"]
    assert not survey["external"], survey["external"]


def test_pages_load_no_pyodide_until_a_run(survey):
    """Every page loaded, no Run pressed: the runtime was never fetched."""
    assert not survey["pyodide_before_run"], survey["pyodide_before_run"]


def test_main_column_does_not_overflow_at_desktop_or_phone_width(survey):
    assert not survey["overflow"], "\n".join(survey["overflow"])


def test_tables_fit_the_column_at_desktop_width(survey):
    assert not survey["tables"], "\n".join(survey["tables"])


def test_code_blocks_fit_the_desktop_column(survey):
    """Issue 47: at 1280 px no code block scrolls sideways (code is
    formatted at 88 columns; commands and output wrap)."""
    assert not survey["wide_code"], "\n".join(survey["wide_code"])


def test_every_tab_fits_the_top_bar_at_desktop_width(survey):
    assert not survey["tabs"], survey["tabs"]


def test_a_benchmark_plot_that_scrolls_on_a_phone_says_so(survey):
    assert not survey["plot_notice"], "\n".join(survey["plot_notice"])


def test_search_ranks_the_teaching_page_first(survey):
    """Issue 47: each term's first result is the page that teaches it.
    Prints the table."""
    rows, wrong = [], []
    for term, lesson in RANKS_FIRST.items():
        links = survey["search"][term]
        first = urlparse(links[0]).path if links else ""
        ok = bool(links) and first.rstrip("/").endswith(lesson.rstrip("/"))
        rows.append(f"{'ok  ' if ok else 'MISS'} {term!r:28} /{lesson}")
        if not ok:
            wrong.append(f"{term!r}: first results {links[:3]}")
    print("\n".join(rows))
    assert len(RANKS_FIRST) >= 30
    assert not wrong, "\n".join(wrong)


def test_diagram_text_is_readable_in_light_and_dark_mode_and_never_clipped(survey):
    """Every text of every diagram in both schemes: at least 3:1 against the
    background, inside the drawing (an SVG scales whole, so one width tells
    for all; text size at 390 px is the next test); and each diagram draws
    something that stands out in both schemes."""
    assert survey["diagrams_checked"] >= len(PHONE_FIT), "diagrams were not found"
    assert not survey["diagrams"], "\n".join(survey["diagrams"])


#: A page whose one diagram draws dark marks on a dark page, and one whose
#: diagram draws them light: the blank check's known-bad and known-good.
DARK_DIAGRAM = """<body style="background:#111"><div class="md-content">
<figure class="diagram"><svg width="120" height="60" role="img">
<rect x="5" y="5" width="50" height="50" fill="{colour}" stroke="none"/>
<line x1="60" y1="30" x2="115" y2="30" stroke="{colour}" stroke-width="2"/>
</svg></figure></div></body>"""


@pytest.mark.parametrize("colour, blank", [("#1a1a1a", True), ("#e0e0e0", False)])
def test_the_diagram_check_catches_a_drawing_lost_in_the_background(
    browser, colour, blank
):
    page = browser.new_page()
    try:
        page.set_content(DARK_DIAGRAM.format(colour=colour))
        found = page.evaluate(DIAGRAM_JS, MIN_TEXT_CONTRAST)
    finally:
        page.close()
    assert any("stands out" in p for p in found) is blank, found


def test_the_main_diagrams_fit_a_phone_column(survey):
    """The five figures a reader most needs draw whole at 390 px, their
    smallest text still 10 px (the next test): no sideways scrolling."""
    found, misfits = set(), []
    for url, label, scrolls in survey["phone_diagrams"]:
        if url in PHONE_FIT and label.startswith(PHONE_FIT[url]):
            found.add(url)
            if scrolls:
                misfits.append(f"/{url}: {label!r} {scrolls}")
    assert found == set(PHONE_FIT), f"not drawn: {sorted(set(PHONE_FIT) - found)}"
    assert not misfits, "\n".join(misfits)


def test_no_answer_or_raw_markdown_shows_before_the_reader_opens_it(survey):
    assert not survey["reading"], "\n".join(survey["reading"])


def test_plot_text_is_at_least_10px_on_a_phone(survey):
    found = survey["plot_text"]
    assert not found, "\n".join(found)


def test_every_copy_button_copies_the_code_it_shows(survey):
    """Every code block has a copy button; the first and last of each page,
    pressed, copy the code their block shows."""
    assert survey["copy_pressed"] > 0, "no copy button was pressed"
    assert not survey["copy"], "\n".join(survey["copy"])


#: A page with several code blocks, for the copy check's known-bad cases.
COPY_CHECK_PAGE = "kernels/memory-bound/transpose-and-coalescing/"
#: The first button pointed at the last block's code, and the last block's
#: button removed: what the copy check must report.
BREAK_COPY_JS = f"""() => {{
  const buttons = [...document.querySelectorAll('.md-content :is({COPY})')];
  const last = buttons[buttons.length - 1];
  buttons[0].setAttribute("data-clipboard-target",
    last.getAttribute("data-clipboard-target"));
  buttons[1].remove();
}}"""


def test_the_copy_check_catches_a_wrong_copy_and_a_missing_button(browser, server):
    visit = Visit(browser, server)
    try:
        visit.page.goto(server + COPY_CHECK_PAGE, wait_until="load")
        visit.page.evaluate(BREAK_COPY_JS)
        found = {"copy_pressed": 0}
        problems = copy_problems(visit.page, COPY_CHECK_PAGE, found)
    finally:
        visit.close()
    assert any(p.endswith("without a copy button: 1") for p in problems), problems
    assert any(" block #" in p for p in problems), problems


def test_copy_button_copies_exactly_the_snippet(survey):
    copied = survey.get("lesson_copy")
    assert copied is not None, f"/{LESSON}: no block titled with {SNIPPET.name}"
    assert copied.rstrip("\n") == section_text(SNIPPET, FIRST_SECTION).rstrip("\n")


def test_access_badge_shows_under_the_heading(survey):
    assert survey.get("badge") == "Free"
    assert survey.get("home_badges", 0) > 0


def test_search_finds_the_exemplar_lesson(survey):
    links = survey["search"]["Amdahl"]
    assert any(LESSON in (link or "") for link in links), links


def test_search_leads_to_the_lesson_that_teaches_a_term(survey):
    """Issue 32: these once led to a stray word match; now a heading in the
    lesson that teaches each is among the first results."""
    missed = {
        term: survey["search"][term][:5]
        for term, lesson in TAUGHT_AT.items()
        if not any(lesson in (link or "") for link in survey["search"][term][:5])
    }
    assert not missed, missed


def test_search_finds_each_glossary_term(survey, built_site):
    terms = glossary_terms(built_site)
    if not terms:
        pytest.skip("no glossary page built yet (docs/reference/glossary.md)")
    # The glossary's entry among the results, or, for a term made of common
    # words ("tensor memory"), the lesson the glossary names for it first:
    # lessons now rank above the glossary (issue 47).
    taught = {
        t["term"]: t["lesson"].removesuffix(".md").removesuffix("index")
        for t in load_terms()
    }
    missing = [
        f"{term}: results {survey['search'][term][:4]}"
        for term in terms
        if not any(GLOSSARY in (link or "") for link in survey["search"][term])
        and not (
            survey["search"][term]
            and taught.get(term, "\0") in urlparse(survey["search"][term][0]).path
        )
    ]
    assert not missing, "\n".join(missing)


def test_calculators_give_what_python_gives(survey):
    if not survey["calculator_pages"]:
        pytest.skip("no page has a calculator yet")
    assert survey["checked"], "no calculator ran"
    assert not survey["mismatch"], "\n".join(survey["mismatch"])


def test_calculators_accept_their_first_values_or_nearby_ones(survey):
    """Fields without first values (no default, none in the placeholder) and
    no accepted random input: give the placeholder first values."""
    assert not survey["never_valid"], survey["never_valid"]


def test_calculators_show_the_functions_own_error(survey):
    """Each calculator's function rejects -1 or 0 in some number field with
    a ValueError naming it (compared with the page above), as plan.md asks."""
    assert not survey["no_invalid"], survey["no_invalid"]


def test_a_prediction_reveals_the_answer_and_the_readers_error(survey):
    if not survey.get("predictions"):
        pytest.skip("no prediction on the first page with calculators")
    for answer, far, text in survey["predictions"]:
        # A guess far off gets a hint and a second try, not the answer.
        assert far.startswith("Not yet") and answer not in far, far
        assert f"The model gives {answer}" in text and "20% high" in text, text


def test_a_second_pages_first_run_does_not_restart_python(survey):
    """Issue 32: only the visit's first calculator pays Pyodide's start; the
    next page's first Run, reached by a link, answers without a reload (its
    1 s budget is measured by make bench-site)."""
    second = survey.get("second_page")
    if second is None:
        pytest.skip("fewer than two pages with calculators")
    print(
        f"first Run of the visit: {survey['first_run_s']:.2f} s (target "
        f"{FIRST_VISIT_RUN_TARGET_S:g} s); first Run on /{second['url']}: "
        f"{second['seconds']:.2f} s"
    )
    assert second["same_visit"], "the link reloaded the page: Pyodide restarted"
    assert second["ok"], f"/{second['url']}: its first calculator failed"
    assert second["seconds"] <= SECOND_PAGE_RUN_HANG_S, f"hung: {second}"


def test_first_run_answers(survey):
    """Loading Pyodide and answering, from a click on a page's first Run."""
    if survey["first_run_s"] is None:
        pytest.skip("no page has a calculator yet")
    print(f"first Run: {survey['first_run_s']:.2f} s")
    assert survey["first_run_s"] <= FIRST_RUN_HANG_S, "hung: no answer"
