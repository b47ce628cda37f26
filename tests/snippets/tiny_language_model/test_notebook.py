"""The notebook page: its committed outputs come from the recorded run, its
code cells are the tested files, its links resolve, and it executes (a
short training into a scratch folder) with the loss falling well below its
starting value."""

import json
import posixpath
import re

import nbformat
import pytest
import torch

from scripts.tiny_lm import __main__ as runner
from snippets.lib.tiny_lm import checkpoint as ckpt

ROOT = runner.ROOT
NOTEBOOK = runner.NOTEBOOK
PAGE_SRC = NOTEBOOK.relative_to(ROOT / "docs").as_posix()
LINK_RE = re.compile(r"\]\((?P<target>[^)\s]+)\)")


@pytest.fixture(scope="module")
def nb():
    return nbformat.read(NOTEBOOK, as_version=4)


@pytest.fixture(scope="module")
def record():
    return json.loads((ckpt.RESULTS / "run.json").read_text())


def output_text(nb):
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                parts.append(out.text)
            elif "data" in out:
                parts.append(out.data.get("text/markdown", ""))
                parts.append(out.data.get("text/plain", ""))
    return "\n".join(parts)


def test_notebook_declares_free_access_and_one_title(nb):
    assert nb.metadata["access"] == "free"
    assert nb.metadata["kernelspec"]["name"] == "python3"
    titles = [
        line
        for cell in nb.cells
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("# ")
    ]
    assert len(titles) == 1 and nb.cells[0].source.startswith("# ")


def test_committed_notebook_ran_cleanly_top_to_bottom(nb):
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    for cell in code:
        for out in cell.outputs:
            assert out.output_type != "error", cell.source[:80]
            assert getattr(out, "name", "") != "stderr", out.text[:200]
    images = [o for c in code for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1  # the loss curve


def test_committed_outputs_are_the_recorded_run(nb, record):
    # The numbers the page shows are the ones run.json holds: neither was
    # typed, and neither was re-run without the other.
    text = output_text(nb)
    expected = [
        f"held-out loss as recorded: {record['heldout_loss_final']:.6f}",
        f"median step: {record['step_ms_median']:.1f} ms",
        f"{record['parameters']:,}",
        f"{record['memory_bytes']['activations']:,}",
        f"sha256 {record['corpus_sha256']}",
        f"sha256 {record['checkpoint_sha256'][:16]}",
        f"{record['steps']} training steps",
        record["sample_after"],
        record["sample_before"],
    ]
    for snippet in expected:
        assert snippet in text, snippet


def test_code_cells_are_the_tested_files(nb):
    assert runner.code_cell_problems(nb, runner.module_definitions()) == []


def test_links_resolve_to_pages_in_the_built_site(nb):
    # mkdocs-jupyter does not rewrite .md links, so the notebook links to
    # the pages' directory URLs, relative to its own URL.
    page_url = posixpath.splitext(PAGE_SRC)[0] + "/"
    targets = [
        m["target"]
        for cell in nb.cells
        if cell.cell_type == "markdown"
        for m in LINK_RE.finditer(cell.source)
    ]
    assert targets, "the page links onward"
    for target in targets:
        assert not target.endswith(".md"), target
        url = posixpath.normpath(posixpath.join(page_url, target))
        page = ROOT / "docs" / url / "index.md"
        assert page.is_file(), f"{target} -> {page} does not exist"
    assert {"../../foundations/", "../../kernels/"} <= set(targets)


@pytest.mark.slow
def test_notebook_executes_and_the_loss_falls(tmp_path):
    before = NOTEBOOK.read_bytes()
    out_dir = tmp_path / "run"
    executed = tmp_path / "executed.ipynb"
    # Each cell's 600 s limit is the hang guard; the notebook's speed is not
    # a test's to judge.
    runner.execute_notebook(
        NOTEBOOK, executed, out_dir=out_dir, steps=80, threads=1, timeout=600
    )
    assert NOTEBOOK.read_bytes() == before  # the committed page is untouched
    nb = nbformat.read(executed, as_version=4)
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "error"
    ]
    assert not errors
    record = json.loads((out_dir / "run.json").read_text())
    assert record["steps"] == 80 and record["torch_threads"] == 1
    assert record["heldout_loss_final"] < 0.6 * record["heldout_loss_initial"]
    assert (
        record["train_loss_last_steps_mean"] < 0.6 * (record["train_loss_first_step"])
    )
    torch.set_num_threads(1)
    model = ckpt.load_checkpoint(out_dir / "checkpoint.pt")
    assert model.config == record["config"]


def test_outputs_name_no_absolute_path_of_this_machine(nb):
    assert str(ROOT) not in output_text(nb)
