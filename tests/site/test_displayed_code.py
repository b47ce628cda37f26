"""Every Python block a built page displays runs when pasted alone into the
project's Python in an empty directory, or its title ends with ' (excerpt)'
and the page links to the whole tested file it names."""

from __future__ import annotations

import pytest

from tests.site.displayed import (
    excerpt_source,
    is_excerpt,
    page_blocks,
    run_blocks,
    site_blocks,
)
from tests.site.sitebuild import ROOT

PYTHON = {"python", "py", "python3"}


@pytest.fixture(scope="module")
def python_blocks(built_site):
    blocks = [b for b in site_blocks(built_site) if b.lang in PYTHON]
    assert blocks, "no Python blocks found on the built site"
    return blocks


def test_every_python_block_runs_as_copied_or_is_an_excerpt(python_blocks, tmp_path):
    runnable = [b for b in python_blocks if not is_excerpt(b)]
    result = run_blocks(runnable, tmp_path)
    failures = result["failures"]
    assert not failures, (
        f"{len(failures)} of {len(runnable)} displayed Python blocks do not run "
        "when pasted alone (put the imports a section needs inside it, or end "
        "its title with ' (excerpt)'):\n\n"
        + "\n\n".join(f"{where}:\n{error}" for where, error in failures.items())
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
