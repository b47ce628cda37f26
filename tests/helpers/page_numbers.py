"""Typed numbers on one lesson page, by the site-wide rule
(tests/site/test_rendered.py), for a page's own test to name its page and
list the names it allows."""

from pathlib import Path

from tests.site.test_rendered import numbers_in


def typed_numbers(page: Path, names: set[str]) -> list[str]:
    found = numbers_in(page.read_text(encoding="utf-8"))
    return [token for token in found if token not in names]
