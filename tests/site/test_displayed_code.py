"""Every Python block a built page displays runs when pasted alone into the
project's Python in an empty directory, or its title ends with ' (excerpt)'
and the page links to the whole tested file it names."""

from __future__ import annotations

import ast
import re

import pytest

from tests.site.displayed import (
    Block,
    excerpt_source,
    is_excerpt,
    page_blocks,
    run_blocks,
    site_blocks,
    undefined_names,
)
from tests.site.sitebuild import ROOT

PYTHON = {"python", "py", "python3"}


@pytest.fixture(scope="module")
def python_blocks(built_site):
    blocks = [b for b in site_blocks(built_site) if b.lang in PYTHON]
    assert blocks, "no Python blocks found on the built site"
    return blocks


# A page's own calls of a file's functions: its inserts, predictions and
# calculators (a calculator runs the function on its defaults).
PAGE_CALL_RE = re.compile(
    r"<!--\s*(?:insert|predict):\s*(?P<path>[\w./-]+\.py):(?P<call>\w+\([^\n]*?\))"
    r"(?=\s*(?:\"|-->|measured=))"
)
CALCULATOR_RE = re.compile(
    r"<!--\s*calculator:\s*(?P<path>[\w./-]+\.py):(?P<func>\w+)(?P<args>\([^\n]*?\))?"
    r"\s*-->"
)


def page_source(page: str):
    """The docs/ file a built page folder comes from."""
    for candidate in (f"{page}.md", f"{page}/index.md", "index.md" if not page else ""):
        if candidate and (ROOT / "docs" / candidate).is_file():
            return (ROOT / "docs" / candidate).read_text(encoding="utf-8")
    return ""


def page_calls(block: Block) -> list[str]:
    """Calls to make after running the block: every call the page makes of
    a function the block defines, and a call on the defaults of each one
    whose parameters all have them."""
    try:
        tree = ast.parse(block.code)
    except SyntaxError:
        return []
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    source = page_source(block.page)
    calls = [
        m["call"]
        for m in PAGE_CALL_RE.finditer(source)
        if m["path"] == block.title and m["call"].split("(")[0] in functions
    ]
    calls += [
        f"{m['func']}{m['args'] or '()'}"
        for m in CALCULATOR_RE.finditer(source)
        if m["path"] == block.title and m["func"] in functions
    ]
    called = {c.split("(")[0] for c in calls}
    for name, node in functions.items():
        args = node.args
        required = len(args.posonlyargs) + len(args.args) - len(args.defaults)
        no_default = [
            k
            for k, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
            if d is None
        ]
        if (
            name not in called
            and not required
            and not no_default
            and not name.startswith("_")
        ):
            calls.append(f"{name}()")
    return list(dict.fromkeys(calls))


@pytest.fixture(scope="module")
def runnable_blocks(python_blocks):
    return [b for b in python_blocks if not is_excerpt(b)]


def test_every_python_block_runs_as_copied_or_is_an_excerpt(runnable_blocks, tmp_path):
    """As a script from an empty folder, pasted into `python -i`, and with
    each function it defines called as the page calls it."""
    calls = {b.where: page_calls(b) for b in runnable_blocks}
    result = run_blocks(runnable_blocks, tmp_path, calls)
    failures = result["failures"]
    assert not failures, (
        f"{len(failures)} of {len(runnable_blocks)} displayed Python blocks do not "
        "run when pasted alone (put the imports and helpers a section needs "
        "inside it, or end its title with ' (excerpt)'):\n\n"
        + "\n\n".join(f"{where}:\n{error}" for where, error in failures.items())
    )


def test_no_function_in_a_runnable_block_uses_a_name_it_never_defines(
    runnable_blocks,
):
    found = [
        f"{b.where}: {function} uses {', '.join(names)}"
        for b in runnable_blocks
        for function, names in undefined_names(b.code).items()
    ]
    assert not found, (
        f"{len(found)} functions would raise NameError when called (show the "
        "helper in the section, or title the block excerpt):\n" + "\n".join(found)
    )


def test_every_excerpt_names_a_tested_file_and_links_to_it(python_blocks, built_site):
    problems = []
    for block in filter(is_excerpt, python_blocks):
        source = excerpt_source(block)
        if not (ROOT / source).is_file():
            problems.append(f"{block.where}: names no file of the project")
            continue
        page = (built_site / block.page / "index.html").read_text(encoding="utf-8")
        if f'src/{source}"' not in page:
            problems.append(f"{block.where}: the page does not link to src/{source}")
    assert not problems, "\n".join(problems)


def test_the_checker_reads_blocks_and_reports_a_failing_one(tmp_path):
    page = (
        '<div class="language-python highlight"><span class="filename">a.py'
        '</span><pre><span></span><code><span id="l1">x = 1 &lt; 2\n</span>'
        "</code></pre></div>"
        '<div class="language-python highlight"><pre><code>undefined_name\n'
        "</code></pre></div>"
        '<div class="language-python highlight"><span class="filename">b.py '
        "(excerpt)</span><pre><code>return 3\n</code></pre></div>"
    )
    blocks = page_blocks(page, "p")
    assert [b.code for b in blocks] == ["x = 1 < 2\n", "undefined_name\n", "return 3\n"]
    assert [is_excerpt(b) for b in blocks] == [False, False, True]
    result = run_blocks(blocks[:2], tmp_path)
    assert set(result["failures"]) == {blocks[1].where}
    assert "NameError" in result["failures"][blocks[1].where]


def test_the_checker_catches_a_prompt_paste_a_call_and_a_missing_helper(tmp_path):
    gap = "def f():\n    x = 1\n\n    return x\n"
    uses_helper = "def g(a):\n    return check(a) + len([a])\n"
    blocks = [
        Block("p", 1, "python", "a.py", gap),
        Block("p", 2, "python", "b.py", uses_helper),
    ]
    result = run_blocks(blocks, tmp_path, {blocks[1].where: ["g(2)"]})
    assert "pasted into python -i" in result["failures"][blocks[0].where]
    assert "the page's call g(2) failed" in result["failures"][blocks[1].where]
    assert undefined_names(uses_helper) == {"g": ["check"]}
    assert undefined_names(gap) == {}
