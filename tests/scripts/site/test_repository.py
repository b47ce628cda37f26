"""scripts/site/repository.py: the repository's address comes from the
Pages workflow's edit address, never typed; without one, the stand-in."""

from __future__ import annotations

from scripts.site.repository import (
    STAND_IN,
    point_at,
    repository_name,
    repository_url,
)


def test_the_address_is_the_edit_address_without_its_tail():
    edit = "https://github.com/someone/their-fork/edit/main/docs/"
    assert repository_url(edit) == "https://github.com/someone/their-fork"
    assert repository_name(repository_url(edit)) == "someone/their-fork"


def test_a_build_without_an_edit_address_uses_the_stand_in():
    for edit in ("", None, "not an address", "https://github.com/only-owner"):
        assert repository_url(edit) == STAND_IN


def test_the_stand_in_is_swapped_for_the_real_address_in_clone_commands():
    page = f"<code>git clone {STAND_IN}.git</code>"
    real = "https://github.com/someone/their-fork"
    assert point_at(page, real) == f"<code>git clone {real}.git</code>"
    assert point_at(page, STAND_IN) == page
    # An address is escaped, so it can never add markup to the page.
    assert "<b>" not in point_at(page, 'https://x/"<b>')
