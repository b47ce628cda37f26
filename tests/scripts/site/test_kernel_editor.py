"""The kernel editor's markup and table, from the exercises' data."""

from scripts.site import kernel_editor


def test_the_editor_carries_the_starter_on_one_line():
    markup = kernel_editor.editor("vector-add")
    assert "\n" not in markup and 'data-exercise="vector-add"' in markup
    assert "data-starter=" in markup and "scripts/practice_web/grade.py" in markup


def test_an_exercise_too_big_for_the_page_says_so():
    assert "kernel-editor--local" in kernel_editor.editor("fix-int32-offset-overflow")
    table = kernel_editor.where_it_runs()
    assert "| `fix-int32-offset-overflow` | local grader | 2.0 GiB |" in table
    assert "| `vector-add` | on the page |" in table
