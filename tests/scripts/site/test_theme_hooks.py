"""scripts/site/theme_hooks.py: the footer's address, page weights and
linked badges, event by event (the built site's are tests/site/test_build.py)."""

from __future__ import annotations

from types import SimpleNamespace

from scripts.site import theme_hooks
from scripts.site.repository import STAND_IN
from scripts.site.roadmap import access_badge


def test_the_footer_gets_the_repository_the_edit_address_names():
    config = {
        "edit_uri": "https://github.com/someone/fork/edit/main/docs/",
        "extra": {},
    }
    theme_hooks.on_config(config)
    assert config["extra"]["repository"] == "https://github.com/someone/fork"
    assert config["extra"]["repository_name"] == "someone/fork"
    theme_hooks.on_config({"edit_uri": "", "extra": {}})  # back to the stand-in


def test_a_lesson_weighs_more_than_a_reference_page():
    theme_hooks.on_config({"edit_uri": "", "extra": {}})

    def boost(src: str) -> float:
        page = SimpleNamespace(meta={}, file=SimpleNamespace(src_uri=src))
        theme_hooks.on_page_markdown("", page, None, None)
        return page.meta["search"]["boost"]

    assert boost("kernels/frontier/warp-specialisation.md") > boost(
        "reference/glossary.md"
    )


def test_badges_in_tables_link_to_the_access_page_and_clone_commands_stay():
    theme_hooks.on_config({"edit_uri": "", "extra": {}})
    page = SimpleNamespace(url="kernels/practice/")
    html = f"<td>{access_badge('premium')}</td><code>git clone {STAND_IN}.git</code>"
    out = theme_hooks.on_post_page(html, page, None)
    assert '<a class="access-link" href="../../reference/access/">' in out
    assert f"git clone {STAND_IN}.git" in out
