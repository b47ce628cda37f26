"""scripts/tiny_lm/__main__.py: the corpus snapshot and the check that keeps the
notebook's code cells equal to the tested files (with broken notebooks it
must reject)."""

import hashlib
import json

import nbformat
import pytest

from scripts.tiny_lm import __main__ as runner


def test_snapshot_joins_pages_in_path_order_and_records_hashes(tmp_path):
    docs = tmp_path / "docs"
    (docs / "b").mkdir(parents=True)
    (docs / "b" / "page.md").write_text("\n# B\n\nbody ×\n\n")
    (docs / "a.md").write_text("# A\n")
    (docs / "skip.ipynb").write_text("{}")
    out = tmp_path / "out"
    description = runner.snapshot_corpus(docs, out)
    corpus = (out / "corpus.txt").read_bytes()
    assert corpus.decode() == "# A\n\n# B\n\nbody ×\n"
    assert description["sha256"] == hashlib.sha256(corpus).hexdigest()
    assert [p["path"] for p in description["pages"]] == ["docs/a.md", "docs/b/page.md"]
    assert json.loads((out / "corpus.json").read_text()) == description


def test_snapshot_refuses_an_empty_docs_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"^docs_dir "):
        runner.snapshot_corpus(tmp_path, tmp_path / "out")


def _notebook(*sources):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title")] + [
        nbformat.v4.new_code_cell(s) for s in sources
    ]
    return nb


DEFINITIONS = {
    "encode": 'def encode(text):\n    return list(text.encode("utf-8"))',
    "decode": "def decode(ids):\n    return bytes(ids).decode()",
}


def test_matching_cells_pass():
    nb = _notebook(
        "import torch",
        DEFINITIONS["encode"] + "\n\n\n" + DEFINITIONS["decode"],
        "print(encode('x'))",  # a demo cell is not a definition cell
    )
    assert runner.code_cell_problems(nb, DEFINITIONS) == []


@pytest.mark.parametrize(
    "cells, reason",
    [
        (
            [DEFINITIONS["encode"].replace("utf-8", "latin-1"), DEFINITIONS["decode"]],
            "differs from the file",
        ),
        ([DEFINITIONS["encode"]], "decode is in the tested files but no cell"),
        (
            [*DEFINITIONS.values(), "def helper():\n    return 1"],
            "which no file in",
        ),
    ],
    ids=["stale-cell", "definition-not-shown", "notebook-only-function"],
)
def test_broken_notebooks_are_reported(cells, reason):
    problems = runner.code_cell_problems(_notebook(*cells), DEFINITIONS)
    assert any(reason in p for p in problems), problems


def test_sync_rewrites_stale_cells_only():
    stale = DEFINITIONS["encode"].replace("utf-8", "latin-1")
    nb = _notebook(stale, DEFINITIONS["decode"], "x = 1")
    assert runner.sync_code_cells(nb, DEFINITIONS) == 1
    assert nb.cells[1].source == DEFINITIONS["encode"]
    assert nb.cells[3].source == "x = 1"
    assert runner.code_cell_problems(nb, DEFINITIONS) == []


def test_module_definitions_keep_decorators():
    found = runner.module_definitions()
    assert found["sample"].startswith("@torch.no_grad()\ndef sample(")
    assert "TinyLM" in found and "load_checkpoint" in found


def test_execute_rejects_too_few_steps(tmp_path):
    with pytest.raises(ValueError, match=r"^steps "):
        runner.execute_notebook(
            runner.NOTEBOOK, tmp_path / "x.ipynb", out_dir=tmp_path, steps=1
        )
