"""The build's helper process computes pages from the last one back, never
a page the build holds or has done, and its errors never stop it."""

from __future__ import annotations

import pytest

from scripts.site import prefetch
from scripts.site.prefetch import PageClaims, work_ahead

PAGES = [(f"{name}.md", f"{name}/") for name in "abcd"]


@pytest.fixture
def claims(tmp_path):
    return PageClaims(tmp_path)


def recorder(fail_on: str | None = None):
    seen = []

    def compute(src, url):
        seen.append((src, url))
        if src == fail_on:
            raise RuntimeError("a page the build will name itself")

    return seen, compute


def test_it_works_back_from_the_last_page_to_the_first_the_build_has_done(claims):
    with claims.building("b.md"):
        pass
    seen, compute = recorder()
    assert work_ahead(PAGES, compute, claims) == ["d.md", "c.md"]
    assert seen == [("d.md", "d/"), ("c.md", "c/")]


def test_it_skips_the_page_the_build_holds_and_goes_on(claims):
    seen, compute = recorder()
    with claims.building("d.md"):
        assert work_ahead(PAGES, compute, claims) == ["c.md", "b.md", "a.md"]
    assert claims.is_done("d.md") and not claims.is_done("c.md")


def test_an_error_on_one_page_leaves_it_to_the_build_and_goes_on(claims):
    seen, compute = recorder(fail_on="c.md")
    assert work_ahead(PAGES, compute, claims) == ["d.md", "c.md", "b.md", "a.md"]
    assert not any(claims.is_done(src) for src, _ in PAGES)


def test_no_helper_when_disabled_or_turned_off(monkeypatch):
    assert prefetch.begin(PAGES, print, enabled=False) == (None, None)
    monkeypatch.setenv("SITE_BUILD_AHEAD", "off")
    assert prefetch.begin(PAGES, print, enabled=True) == (None, None)


def test_a_real_helper_computes_only_markdown_pages_and_leaves_nothing(tmp_path):
    out = tmp_path / "computed"
    out.mkdir()

    def compute(src, url):
        (out / src).write_text(url)

    pages = [*PAGES, ("notebook.ipynb", "notebook/")]
    claims, helper = prefetch.begin(pages, compute, enabled=True)
    helper.join(timeout=20)
    assert sorted(p.name for p in out.iterdir()) == [src for src, _ in PAGES]
    prefetch.stop(helper, claims)
    assert not claims.folder.exists()
