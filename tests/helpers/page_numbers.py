"""Typed numbers on a lesson page: what is left once placeholders, code,
links, exercise markers ("**1.**") and version names ("version 2") are
taken out, and the names the page lists are allowed. Built on the tiled
matmul page's check (tests/snippets/tiled_matmul/test_page.py)."""

import re
from pathlib import Path

from tests.snippets.tiled_matmul.test_page import stray_numbers

_MARKERS = re.compile(r"\*\*\d+\.\*\*|\b[Vv]ersions? \d+( and \d+)?\b")


def typed_numbers(page: Path, names: set[str]) -> list[str]:
    text = _MARKERS.sub(" ", page.read_text(encoding="utf-8"))
    found = (token.strip("()") for token in stray_numbers(text))
    return [token for token in found if token and token not in names]
