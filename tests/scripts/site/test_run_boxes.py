"""scripts/site/run_boxes.py: the "Run it yourself" box, its output computed
for torch-free modules and read from a record for the others."""

from __future__ import annotations

import ast

import pytest

from scripts.site import run_boxes
from scripts.site.run_boxes import (
    RunBoxError,
    command,
    expand_run_boxes,
    has_main_block,
    heavy_imports,
    output_for,
    render_box,
)

AMDAHL = "snippets/lib/amdahl.py"


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_command_has_one_form():
    assert command("snippets/a_b/c.py") == (
        "TRITON_INTERPRET=1 .venv/bin/python -m snippets.a_b.c"
    )


@pytest.mark.parametrize(
    "source, expected",
    [
        ('if __name__ == "__main__":\n    pass\n', True),
        ('if "__main__" == __name__:\n    pass\n', True),
        ("def f():\n    if __name__ == '__main__':\n        pass\n", False),
        ("print(1)\n", False),
    ],
)
def test_main_block_is_found_only_at_top_level(source, expected):
    assert has_main_block(ast.parse(source)) is expected


def test_heavy_imports_follow_project_modules(tmp_path):
    write(tmp_path, "snippets/a/light.py", "import math\nfrom snippets.a import mid\n")
    write(tmp_path, "snippets/a/mid.py", "def f():\n    import torch\n")
    write(tmp_path, "snippets/a/free.py", "import json\nfrom snippets.a import x\n")
    write(tmp_path, "snippets/a/x.py", "X = 1\n")
    chain = heavy_imports(tmp_path / "snippets/a/light.py", tmp_path)
    assert chain == ["snippets.a.light", "snippets.a.mid", "torch"]
    assert heavy_imports(tmp_path / "snippets/a/free.py", tmp_path) == []


def test_a_torch_free_module_is_run_and_its_output_shown():
    output = output_for(AMDAHL)
    assert output.startswith("cap for a kernel at 20%:")
    assert len(output.splitlines()) <= run_boxes.MAX_LINES


def test_a_module_that_imports_torch_needs_a_record(tmp_path):
    body = 'import torch\nif __name__ == "__main__":\n    print("hi")\n'
    write(tmp_path, "snippets/k/run.py", body)
    with pytest.raises(RunBoxError, match=r"imports torch .*scripts.site.run_boxes"):
        output_for("snippets/k/run.py", tmp_path)
    write(tmp_path, "snippets/k/run.out.txt", "hi\n")
    assert output_for("snippets/k/run.py", tmp_path) == "hi"


@pytest.mark.parametrize(
    "files, message",
    [
        ({}, "no such file"),
        ({"snippets/k/run.py": "X = 1\n"}, "no `if __name__"),
    ],
    ids=["missing", "no-main"],
)
def test_a_bad_target_is_refused(tmp_path, files, message):
    for rel, text in files.items():
        write(tmp_path, rel, text)
    with pytest.raises(RunBoxError, match=message):
        output_for("snippets/k/run.py", tmp_path)


def test_too_long_an_output_is_refused(tmp_path):
    write(
        tmp_path,
        "snippets/k/run.py",
        'import torch\nif __name__ == "__main__":\n    pass\n',
    )
    write(tmp_path, "snippets/k/run.out.txt", "line\n" * 16)
    with pytest.raises(RunBoxError, match="prints 16 lines"):
        output_for("snippets/k/run.py", tmp_path)


def test_the_box_keeps_the_placeholder_indent_and_names_the_page():
    box = render_box("snippets/a/b.py", "x = 1", "../src/snippets/a/b.py", "    ")
    lines = box.split("\n")
    assert lines[0] == '    !!! example "Run it yourself"'
    assert "        TRITON_INTERPRET=1 .venv/bin/python -m snippets.a.b" in lines
    assert '        ??? note "What it prints"' in lines
    assert "            x = 1" in lines
    page = "Text\n<!-- run: snippets/no/such.py -->\n```\n<!-- run: x -->\n```"
    with pytest.raises(RunBoxError, match=r"docs/p.md: run box: no such file"):
        expand_run_boxes(page, "p.md", lambda p: p)
    inline = "See <!-- run: snippets/a/b.py --> here."
    with pytest.raises(RunBoxError, match="stand alone"):
        expand_run_boxes(inline, "p.md", lambda p: p)
    code_only = (
        "```\n<!-- run: snippets/no/such.py -->\n```\n`<!-- run: snippets/a/b.py -->`"
    )
    assert expand_run_boxes(code_only, "p.md", lambda p: p) == code_only


def test_markdown_output_is_rendered_and_plain_output_stays_text():
    table = "**Choose A**\n| a | b |\n| --- | --- |\n| 1 | 2 |\nlast line"
    box = render_box("snippets/a/b.py", table, "l", how_to_run="../how.md")
    assert "```text" not in box
    assert "        | a | b |\n        | --- | --- |" in box
    assert "        **Choose A**\n\n        | a | b |" in box
    assert "[How to run the code](../how.md)" in box
    plain = render_box("snippets/a/b.py", "x: 1\ny: 2", "l")
    assert "        ```text" in plain and "How to run" not in plain
