"""Re-run the tiny language model notebook and save what it produces.

`make notebook` runs this as `python -m scripts.tiny_lm`. In order it:

1. snapshots the site's Markdown pages (docs/**/*.md, sorted by path) into
   results/tiny_lm/corpus.txt, with each page's sha256 in corpus.json;
2. copies every function and class in snippets/lib/tiny_lm/model.py
   and snippets/lib/tiny_lm/checkpoint.py into the notebook cell that
   shows it, so the page never drifts from the tested code;
3. executes docs/start/tiny-language-model.ipynb in place with nbclient
   (kernel working directory: the repository root), which trains the model
   and writes results/tiny_lm/checkpoint.pt and run.json;
4. adds the run's provenance (git commit, dirty flag, UTC time, command,
   notebook wall time) to run.json.

The tests import `execute_notebook` and the cell-sync helpers from here, and
run a short training into a scratch folder with TINY_LM_STEPS / TINY_LM_OUT.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from evidence import sha256_bytes
from evidence.provenance import git_identity
from scripts.cli import OneLineParser

ROOT = Path(__file__).resolve().parents[2]
# How the run record and the corpus description name the command that made them.
COMMAND = "python -m scripts.tiny_lm"
NOTEBOOK = ROOT / "docs" / "start" / "tiny-language-model.ipynb"
RESULTS = ROOT / "results" / "tiny_lm"
CODE_FILES = (
    ROOT / "snippets" / "lib" / "tiny_lm" / "model.py",
    ROOT / "snippets" / "lib" / "tiny_lm" / "checkpoint.py",
)
DEFINITION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# The limit for training on two cores, in CPU wall seconds.
TRAIN_LIMIT_SECONDS = 120


# --------------------------------------------------------------------------
# Corpus snapshot
# --------------------------------------------------------------------------


def snapshot_corpus(docs_dir: Path = ROOT / "docs", out_dir: Path = RESULTS) -> dict:
    """Join every Markdown page under docs_dir into out_dir/corpus.txt and
    describe it in out_dir/corpus.json. Returns the description."""
    pages = sorted(docs_dir.rglob("*.md"), key=lambda p: p.as_posix())
    if not pages:
        raise FileNotFoundError(f"docs_dir {docs_dir} holds no Markdown pages")
    texts, listing = [], []
    for page in pages:
        data = page.read_bytes()
        texts.append(data.decode("utf-8").strip() + "\n")
        listing.append(
            {
                "path": page.relative_to(docs_dir.parent).as_posix(),
                "bytes": len(data),
                "sha256": sha256_bytes(data),
            }
        )
    corpus = "\n".join(texts).encode("utf-8")
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "corpus.txt").write_bytes(corpus)
    description = {
        "made_by": COMMAND,
        "how": "each page stripped of outer blank lines, pages in path order, "
        "joined by one blank line",
        "sha256": sha256_bytes(corpus),
        "bytes": len(corpus),
        "pages": listing,
    }
    (out_dir / "corpus.json").write_text(json.dumps(description, indent=2) + "\n")
    return description


# --------------------------------------------------------------------------
# Notebook cells that show the tested definitions
# --------------------------------------------------------------------------


def module_definitions(paths=CODE_FILES) -> dict[str, str]:
    """Source text of every top-level function and class in the given
    files, decorators included, keyed by name."""
    found: dict[str, str] = {}
    for path in paths:
        text = Path(path).read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.parse(text).body:
            if not isinstance(node, DEFINITION_NODES):
                continue
            if node.name in found:
                raise ValueError(f"{node.name} is defined twice in {paths}")
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            found[node.name] = "\n".join(lines[first - 1 : node.end_lineno])
    return found


def definition_names(source: str) -> list[str] | None:
    """Names a cell defines if it holds nothing but function and class
    definitions; None for any other cell."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return None
    if body and all(isinstance(node, DEFINITION_NODES) for node in body):
        return [node.name for node in body]
    return None


def expected_cell_source(names: list[str], definitions: dict[str, str]) -> str:
    missing = [name for name in names if name not in definitions]
    if missing:
        raise KeyError(
            f"notebook cell defines {missing}, which no file in "
            f"{[p.name for p in CODE_FILES]} defines: move the code there"
        )
    return "\n\n\n".join(definitions[name] for name in names)


def code_cell_problems(nb, definitions: dict[str, str]) -> list[str]:
    """Every way the notebook's definition cells differ from the tested
    files: a stale cell, a notebook-only definition, a definition the page
    never shows. Empty when they agree."""
    problems, shown = [], set()
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        names = definition_names(cell.source)
        if names is None:
            continue
        shown.update(names)
        try:
            expected = expected_cell_source(names, definitions)
        except KeyError as exc:
            problems.append(f"cell {index}: {exc.args[0]}")
            continue
        if cell.source != expected:
            problems.append(f"cell {index} ({', '.join(names)}) differs from the file")
    for name in sorted(set(definitions) - shown):
        problems.append(f"{name} is in the tested files but no cell shows it")
    return problems


def sync_code_cells(nb, definitions: dict[str, str]) -> int:
    """Overwrite each definition cell with the tested source; return how
    many cells changed."""
    changed = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        names = definition_names(cell.source)
        if names is None:
            continue
        expected = expected_cell_source(names, definitions)
        if cell.source != expected:
            cell.source = expected
            changed += 1
    return changed


# --------------------------------------------------------------------------
# Execution
# --------------------------------------------------------------------------


def execute_notebook(
    source: Path,
    destination: Path,
    *,
    out_dir: Path | None = None,
    steps: int | None = None,
    threads: int | None = None,
    timeout: int = 600,
) -> float:
    """Execute the notebook at `source` with its kernel in the repository
    root, write it with outputs to `destination`, return the wall seconds.
    `out_dir`, `steps` and `threads` become TINY_LM_OUT, TINY_LM_STEPS and
    TINY_LM_THREADS; `timeout` bounds each cell, in seconds."""
    nb = nbformat.read(source, as_version=4)
    env = dict(os.environ)
    # Figures must come back as images even if the caller set MPLBACKEND.
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    env["PYTHONHASHSEED"] = "0"
    if out_dir is not None:
        env["TINY_LM_OUT"] = str(out_dir)
    if steps is not None:
        if steps < 2:
            raise ValueError(f"steps must be at least 2, got {steps}")
        env["TINY_LM_STEPS"] = str(steps)
    if threads is not None:
        env["TINY_LM_THREADS"] = str(threads)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(ROOT)}},
    )
    started = time.perf_counter()
    client.execute(env=env)
    seconds = time.perf_counter() - started
    nbformat.write(nb, destination)
    return seconds


def git_facts() -> dict:
    identity = git_identity()
    known = identity["commit_source"] == "git"
    return {
        "git_commit": identity["commit"] if known else None,
        "git_dirty": identity["dirty"] if known else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help="training steps (default: the notebook's)",
    )
    parser.add_argument(
        "--keep-corpus",
        action="store_true",
        help="train on the committed corpus snapshot instead of re-reading docs/",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="only report whether the notebook's code cells match the tested files",
    )
    args = parser.parse_args(argv)

    definitions = module_definitions()
    nb = nbformat.read(NOTEBOOK, as_version=4)
    if args.check:
        problems = code_cell_problems(nb, definitions)
        for problem in problems:
            print(problem)
        return 1 if problems else 0

    provenance = {
        **git_facts(),
        "started_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": " ".join([COMMAND, *(argv or sys.argv[1:])]),
    }
    if not args.keep_corpus:
        corpus = snapshot_corpus()
        print(f"corpus: {len(corpus['pages'])} pages, {corpus['bytes']:,} bytes")
    changed = sync_code_cells(nb, definitions)
    nbformat.write(nb, NOTEBOOK)
    print(f"synced {changed} code cell(s) from the tested files")

    seconds = execute_notebook(NOTEBOOK, NOTEBOOK, steps=args.steps)
    record_path = RESULTS / "run.json"
    record = json.loads(record_path.read_text())
    record["provenance"] = {**provenance, "notebook_seconds": round(seconds, 1)}
    record_path.write_text(json.dumps(record, indent=2) + "\n")
    print(
        f"notebook executed in {seconds:.1f} s; training "
        f"{record['train_wall_seconds']:.1f} s, median step "
        f"{record['step_ms_median']:.1f} ms (CPU wall time)"
    )
    print(
        f"held-out loss {record['heldout_loss_initial']:.3f} -> "
        f"{record['heldout_loss_final']:.3f} nats/byte"
    )
    if record["train_wall_seconds"] > TRAIN_LIMIT_SECONDS:
        # Other work on the same cores stalls torch's threads; the page
        # promises training within the limit, so do not keep this run.
        print(
            f"training took {record['train_wall_seconds']:.0f} s, over the "
            f"{TRAIN_LIMIT_SECONDS} s limit: was the machine busy? Run again "
            "when it is idle (the tests reject this record).",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
