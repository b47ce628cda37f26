"""Calculators in the built site: the markup each page carries, the Python
files and the Pyodide runtime the build copied (the browser runs them in
tests/site/test_browser.py)."""

from __future__ import annotations

import html
import inspect
import json
import re
from pathlib import Path

from scripts.site.calculators import PYODIDE_FILES, SITE_PYODIDE, SITE_PYTHON
from tests.site.sitebuild import ROOT

CALCULATOR_RE = re.compile(
    r"<div class=\"calculator\"[^>]*>.*?</output></p></div>", re.S
)
PREDICT_RE = re.compile(r"<div class=\"predict\" data-predict[^>]*>")


def pages(built_site: Path) -> dict[str, str]:
    return {
        p.relative_to(built_site).as_posix(): p.read_text(encoding="utf-8")
        for p in built_site.rglob("index.html")
        if "assets" not in p.parts
    }


def attribute(tag: str, name: str) -> str:
    return html.unescape(re.search(rf'{name}="([^"]*)"', tag)[1])


def test_vendored_pyodide_is_the_locked_version_and_only_the_runtime(built_site):
    folder = built_site / SITE_PYODIDE
    assert sorted(p.name for p in folder.iterdir()) == sorted(PYODIDE_FILES)
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    locked = lock["packages"]["node_modules/pyodide"]["version"]
    installed = json.loads((ROOT / "node_modules/pyodide/package.json").read_text())
    assert installed["version"] == locked
    size = sum(p.stat().st_size for p in folder.iterdir())
    print(f"vendored Pyodide {locked}: {size / 1e6:.1f} MB")
    assert size < 20e6


def test_each_calculator_matches_its_function(built_site):
    found = 0
    for rel, text in pages(built_site).items():
        for block in CALCULATOR_RE.findall(text):
            found += 1
            path, func_name = attribute(block, "data-calculator").split(":")
            module = path.removesuffix(".py").replace("/", ".")
            assert attribute(block, "data-module") == module
            func = getattr(__import__(module, fromlist=[func_name]), func_name)
            names = re.findall(r'<input name="([^"]+)"', block)
            assert names == list(inspect.signature(func).parameters), rel
            assert "data-output" in block and "<button" in block
            for file in attribute(block, "data-files").split():
                copied = built_site / SITE_PYTHON / file
                assert copied.read_bytes() == (ROOT / file).read_bytes(), file
    assert found >= 4, "the lessons' calculators are missing"
    runtime = built_site / SITE_PYTHON / "calculator_runtime.py"
    assert (
        runtime.read_bytes()
        == (ROOT / "scripts/site/calculator_runtime.py").read_bytes()
    )


def test_no_page_links_the_runtime_itself(built_site):
    """Only calculators.js knows where Pyodide is, and fetches it on a Run."""
    for rel, text in pages(built_site).items():
        assert "assets/pyodide" not in text, rel


def test_predictions_carry_a_computed_answer(built_site):
    answers = [
        float(attribute(tag, "data-answer"))
        for text in pages(built_site).values()
        for tag in PREDICT_RE.findall(text)
    ]
    assert answers, "no prediction on any page"
