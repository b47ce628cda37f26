"""scripts/bench/site_browser.py against a two-page stand-in site: the
calculators' Run is timed on both pages, and a link that reloads the page
(Pyodide would start again) is a failed measurement, not a fast one."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from scripts.bench import site, site_browser

# Run answers at once; a link inside the article either swaps the page in
# place, as Material's instant navigation does, or (reload=true) navigates.
PAGE = """<!doctype html><html><body><article>
<div data-calculator="x"><button>Run</button></div></article>
<script>
document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-calculator] button");
  if (button) {
    const el = button.parentElement;
    setTimeout(() => { el.dataset.runs = Number(el.dataset.runs || 0) + 1; }, 20);
  }
  const link = event.target.closest("a");
  if (link && !RELOAD) {
    event.preventDefault();
    const text = await (await fetch(link.href)).text();
    const html = new DOMParser().parseFromString(text, "text/html");
    document.querySelector("article").replaceWith(html.querySelector("article"));
    history.pushState({}, "", link.href);
  }
});
</script></body></html>"""


def stand_in_site(folder: Path, reload: bool) -> Path:
    for name in ("", "a/", "b/"):
        page = folder / name / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        script = f"<script>const RELOAD = {str(reload).lower()};</script>"
        page.write_text(PAGE.replace("<article>", script + "<article>", 1))
    (folder / "other").mkdir()
    (folder / "other" / "index.html").write_text("<p>no calculator</p>")
    return folder


def context(tmp_path, reload: bool) -> site.Context:
    ctx = site.Context(Path.cwd(), tmp_path)
    stand_in_site(ctx.site, reload)
    return ctx


def test_pages_with_a_calculator_are_found(tmp_path):
    found = site_browser.calculator_pages(stand_in_site(tmp_path, False))
    assert found == ["a/", "b/", ""]  # in path order


def test_no_chromium_is_a_skip_naming_the_package(tmp_path, monkeypatch):
    monkeypatch.setattr(site_browser, "CHROMIUM", str(tmp_path / "none"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(site.Skip, match="Debian's package chromium"):
        site_browser.calculator_runs(context(tmp_path, False), 10)


needs_chromium = pytest.mark.skipif(
    not (Path(site_browser.CHROMIUM).exists() or shutil.which("chromium"))
    and os.environ.get("CI") != "true",
    reason="no Chromium (Debian's chromium)",
)


@needs_chromium
@pytest.mark.browser
def test_both_runs_are_timed_in_one_visit(tmp_path):
    ctx = context(tmp_path, reload=False)
    found = site_browser.calculator_runs(ctx, 60)
    assert found["same_visit"] and found["first"] > 0 and found["second"] > 0
    assert site_browser.calculator_runs(ctx, 60) is found  # timed once


@needs_chromium
@pytest.mark.browser
def test_a_link_that_reloads_the_page_fails(tmp_path):
    with pytest.raises(site.Failed, match="reloaded the page"):
        site_browser.calculator_runs(context(tmp_path, reload=True), 60)
