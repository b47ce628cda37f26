"""scripts/site/hooks.py, function by function: inserts, code block titles
and links, and what a page declares before it is rendered."""

from __future__ import annotations

import json

import pytest
from properdocs.exceptions import PluginError

from scripts.site import site_files
from scripts.site.build_cache import BuildCache
from scripts.site.code_blocks import annotate_code_blocks, link_code_titles
from scripts.site.hooks import (
    expand_inserts,
    first_heading,
    module_for,
    parse_literal_call,
    peek_page,
)

AMDAHL = "snippets/lib/amdahl.py"


def test_literal_arguments_are_parsed_and_code_is_refused():
    assert parse_literal_call('1, "a", k=(2, 3)') == ((1, "a"), {"k": (2, 3)})
    with pytest.raises(ValueError):
        parse_literal_call("__import__('os')")


def test_modules_are_imported_by_repository_path():
    assert module_for(AMDAHL).__name__ == AMDAHL.removesuffix(".py").replace("/", ".")
    with pytest.raises(FileNotFoundError, match="no such file"):
        module_for("snippets/no_such_file.py")


def test_inserts_run_in_prose_and_stay_as_written_in_code():
    call = f"<!-- insert: {AMDAHL}:fmt_x(1.25) -->"
    page = f"A {call}.\n`{call}`\n```markdown\n{call}\n```"
    out = expand_inserts(page, "index.md", "")
    first, *rest = out.split("\n")
    assert call not in first and first.startswith("A ")
    assert rest == [f"`{call}`", "```markdown", call, "```"]


def test_a_multi_line_insert_keeps_its_indentation_inside_a_fold():
    call = f"<!-- insert: {AMDAHL}:speedup_table() -->"
    page = f'??? success "Answer"\n\n    {call}\n\nafter'
    lines = expand_inserts(page, "index.md", "").split("\n")
    table = [line for line in lines if "|" in line]
    assert len(table) > 2 and all(line.startswith("    |") for line in table)
    assert lines[-1] == "after"


def test_a_failing_insert_names_page_and_placeholder():
    with pytest.raises(PluginError, match=r"docs/a/b.md: insert .*nothing\(\)"):
        expand_inserts(f"<!-- insert: {AMDAHL}:nothing() -->", "a/b.md", "a/b/")


def test_a_fact_is_looked_up_by_key_in_prose_and_inside_a_fold():
    fact = f"<!-- fact: {AMDAHL}:exercise.cap -->"
    page = f'The cap is {fact}.\n\n??? success "Answer"\n\n    {fact}\n`{fact}`'
    lines = expand_inserts(page, "index.md", "").split("\n")
    assert lines[0].startswith("The cap is ") and lines[0].endswith("×.")
    assert lines[4].startswith("    ") and lines[4].endswith("×")
    assert lines[5] == f"`{fact}`"  # shown as syntax inside a code span


def test_an_unknown_fact_is_refused_once_naming_page_key_and_known_keys():
    with pytest.raises(PluginError) as caught:
        expand_inserts(f"<!-- fact: {AMDAHL}:exercise.nope -->", "a/b.md", "a/b/")
    message = str(caught.value)
    assert message.startswith("docs/a/b.md: fact snippets/lib/amdahl.py:exercise.nope")
    assert "'exercise.nope'" in message and "exercise.cap" in message
    with pytest.raises(PluginError, match="has no function 'facts'"):
        expand_inserts("<!-- fact: kernels/devices.py:x -->", "a/b.md", "a/b/")


def fence(title: str, target: str, indent: str = "") -> str:
    return f'{indent}```python title="{title}"\n{indent}--8<-- "{target}"\n{indent}```'


def test_a_titled_include_is_checked_and_left_as_written():
    page = fence(AMDAHL, f"{AMDAHL}:body", indent="    ") + "\nafter"
    assert annotate_code_blocks(page, "kernels/lesson.md") == page


def test_a_block_title_naming_a_project_file_links_to_the_whole_file():
    rendered = (
        f'<span class="filename">{AMDAHL}</span>'
        f'<span class="filename">{AMDAHL} (excerpt)</span>'
        '<span class="filename">notes.txt</span>'
    )
    out = link_code_titles(rendered, "kernels/lesson/")
    assert out.count(f'href="../../src/{AMDAHL}"') == 2
    assert f">{AMDAHL} (excerpt)</a>" in out
    assert '<span class="filename">notes.txt</span>' in out


def test_an_include_titled_with_another_file_fails():
    with pytest.raises(PluginError, match="must be titled"):
        annotate_code_blocks(fence("snippets/other.py", AMDAHL), "index.md")


def test_an_excerpt_is_titled_so_and_linked_to_its_file():
    included = fence(f"{AMDAHL} (excerpt)", f"{AMDAHL}:body")
    assert annotate_code_blocks(included, "index.md") == included
    # An excerpt written into the page (or inserted) must name its file too.
    written = f'```python title="{AMDAHL} (excerpt)"\nreturn 1\n```'
    assert annotate_code_blocks(written, "index.md") == written
    orphan = '```python title="snippets/none.py (excerpt)"\nx\n```'
    with pytest.raises(PluginError, match="must name the project file"):
        annotate_code_blocks(orphan, "index.md")


def test_blocks_without_includes_are_left_alone():
    page = "```python\nx = 1\n```\ntext"
    assert annotate_code_blocks(page, "index.md") == page


def test_a_page_is_peeked_through_its_front_matter_and_first_heading(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "---\naccess: premium\ntitle: ignored here\n---\n\n"
        "```python\n# not a heading\n```\n\n# The title\n",
        encoding="utf-8",
    )
    assert peek_page(page) == ("premium", "The title")
    bare = tmp_path / "bare.md"
    bare.write_text("No front matter, no heading.\n", encoding="utf-8")
    assert peek_page(bare) == (None, None)


def test_a_notebook_is_peeked_through_its_metadata(tmp_path):
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text(
        json.dumps(
            {
                "metadata": {"access": "free"},
                "cells": [
                    {"cell_type": "code", "source": ["# a comment\n"]},
                    {"cell_type": "markdown", "source": ["# Notebook\n", "text"]},
                ],
            }
        ),
        encoding="utf-8",
    )
    assert peek_page(notebook) == ("free", "Notebook")


def test_first_heading_ignores_deeper_headings():
    assert first_heading("## Sub\n# Top\n") == "Top"


def start_site_files(providers):
    store = BuildCache(enabled=False)
    return site_files.start(providers, in_background=True, store=store, load=module_for)


def test_site_files_come_from_a_second_process_and_so_do_its_errors(tmp_path):
    pool, pending = start_site_files([("snippets/no_such_file.py", "site_files")])
    assert pending == []
    pool.join()
    # fmt_x needs an argument: the provider's TypeError reaches the build.
    pool, pending = start_site_files([(AMDAHL, "fmt_x")])
    with pytest.raises(TypeError, match="fmt_x"):
        site_files.write(tmp_path, pending)
    pool.join()
    assert list(tmp_path.iterdir()) == []


def test_plots_are_drawn_only_when_a_page_shows_a_table(tmp_path):
    from scripts.site.hooks import SITE_FILE_PROVIDERS

    def providers_used(docs_dir):
        return site_files.providers_used(docs_dir, SITE_FILE_PROVIDERS)

    (tmp_path / "a.md").write_text("no tables here")
    assert providers_used(tmp_path) == []
    (tmp_path / "b.md").write_text(
        "<!-- insert: scripts/site/bench_pages.py:kernel_results('x') -->"
    )
    assert providers_used(tmp_path) == SITE_FILE_PROVIDERS


# --------------------------------------------------------------------------
# Placeholders come from the page's own text, never from an inserted value
# --------------------------------------------------------------------------

HOSTILE_VALUE = (
    '<!-- diagram: scripts/bench/writer.py:ResultWriter("/tmp", "x") "a" --> '
    "<!-- run: snippets/lib/amdahl.py --> <!-- glossary -->"
)


def test_an_inserted_value_is_stashed_so_no_other_kind_reads_it(monkeypatch):
    from scripts.site import hooks

    monkeypatch.setattr(hooks, "run_insert", lambda *args: HOSTILE_VALUE)
    stash: list[str] = []
    page = f"A <!-- insert: {AMDAHL}:fmt_x(1) --> b."
    marked = expand_inserts(page, "index.md", "", stash)
    assert "<!--" not in marked and stash == [HOSTILE_VALUE]
    # What the other kinds see holds no placeholder; the value comes back last.
    assert hooks.expand_page_diagrams(marked, "index.md") == marked
    assert hooks.restore_stash(marked, stash) == f"A {HOSTILE_VALUE} b."


def test_a_stash_token_in_the_source_cannot_fetch_a_value():
    from scripts.site import hooks

    # on_page_markdown drops STX from the source first, so a page cannot
    # spell a token; restore_stash only ever sees tokens it handed out.
    assert hooks.STASH_RE.fullmatch("\x020\x03")
    assert not hooks.STASH_RE.search("\\x020\\x03 <!-- insert -->")


@pytest.mark.parametrize(
    "path, src, allowed",
    [
        ("snippets/tiled_matmul/diagram.py", "kernels/mm/tiled-matmul.md", True),
        ("snippets/lib/wave_figure.py", "interview/partial-wave-gemm.md", True),
        ("snippets/online_softmax/online.py", "kernels/mm/tiled-matmul.md", False),
        ("scripts/bench/writer.py", "kernels/mm/tiled-matmul.md", False),
        ("snippets/lib/../../scripts/cli.py", "index.md", False),
    ],
)
def test_a_diagram_may_call_only_its_pages_folder_or_the_library(path, src, allowed):
    from scripts.site.hooks import diagram_refusal

    why = diagram_refusal(path, src)
    assert (why is None) == allowed
    if not allowed:
        assert why.startswith(f"{path}: a diagram on docs/{src} may call only")


def test_a_diagram_cannot_call_a_function_its_file_only_imports():
    from scripts.site.hooks import make_figure

    with pytest.raises(PermissionError, match="imported there, not defined"):
        make_figure("snippets/lib/wave_figure.py", "Waves", "", "x.md")
    with pytest.raises(PermissionError, match="may call only"):
        make_figure("scripts/bench/writer.py", "ResultWriter", '"/tmp", "x"', "x.md")


def test_the_prefetch_runs_the_pages_own_pipeline(tmp_path, monkeypatch):
    # One pipeline: a kind added to expand_page is warmed by the prefetch too.
    from scripts.site import hooks

    seen = []
    monkeypatch.setattr(hooks, "expand_page", lambda *args: seen.append(args))
    (tmp_path / "p.md").write_text("---\naccess: free\n---\n# P\n", encoding="utf-8")
    hooks.compute_page(tmp_path, "p.md", "p/")
    assert seen == [("# P\n", "p.md", "p/", tmp_path)]
