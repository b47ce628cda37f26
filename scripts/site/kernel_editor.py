"""The kernel editor on the on-ramp and the practice pages: the starter in
an editor, Run and Check, the grader's verdict and hints, graded in the
reader's browser (``scripts/practice_web`` in Pyodide, loaded by
``docs/assets/kernel_editor.js`` on the first Check or Run; nothing leaves the
reader's machine).

``<!-- insert: scripts/site/kernel_editor.py:editor("vector-add") -->``
    the editor for one exercise, as one line of HTML (the starter in a data
    attribute, so no blank line ends the HTML block), or, for an exercise the
    page cannot run, an empty element: the page's words say why.
``<!-- insert: scripts/site/kernel_editor.py:where_it_runs() -->``
    every exercise: on the page, or the local grader and the input size
    that decides it.

:func:`write_site` copies the Python the worker loads and the Pyodide
runtime into the built site.
"""

from __future__ import annotations

import html
import shutil
from pathlib import Path

from evidence.tables import markdown_table
from scripts.practice.exercises import BY_NAME, EXERCISES, ROOT
from scripts.site import calculators

SITE_PYTHON = "assets/kernel-editor/py"
#: What the worker imports: the exercises' data, hints and source checks, the
#: harness's case model, source reader and race sentence, and the subset (all
#: standard library, checked by tests/scripts/site/test_kernel_editor.py).
PYTHON_FILES = (
    "scripts/__init__.py",
    "scripts/practice/__init__.py",
    "scripts/practice/exercises.py",
    "scripts/practice/hints.py",
    "scripts/practice/source.py",
    "scripts/qualify/__init__.py",
    "scripts/qualify/learner_cases.py",
    "scripts/qualify/learner_source.py",
    "scripts/qualify/race_report.py",
    "scripts/qualify/review.py",
    *sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "scripts" / "practice_web").glob("*.py")
    ),
)


def _attr(value) -> str:
    return html.escape(str(value), quote=True).replace("\n", "&#10;")


def editor(name: str) -> str:
    """One exercise's editor (or its local-only notice), one line of HTML.
    The textarea starts empty: the script fills it with the reader's saved
    code or the starter, so the starter is never indexed as the page's text."""
    from scripts.practice_web.cases import runs_on_page

    exercise = BY_NAME[name]
    if not runs_on_page(exercise):
        return (f'<div class="kernel-editor kernel-editor--local" '
                f'data-exercise="{_attr(name)}"></div>')  # fmt: skip
    starter = (exercise.folder / "starter.py").read_text(encoding="utf-8")
    rows = max(12, min(40, starter.count("\n") + 2))
    buttons = "".join(
        f'<button type="button" class="md-button{extra}" '
        f'data-action="{action}">{label}</button>'
        for action, label, extra in BUTTONS
    )
    return (
        f'<div class="kernel-editor" data-exercise="{_attr(name)}" '
        f'data-starter="{_attr(starter)}" '
        f'data-files="{_attr(" ".join(PYTHON_FILES))}">'
        f'<textarea class="kernel-editor-code" rows="{rows}" spellcheck="false" '
        f'autocapitalize="off" aria-label="{_attr(exercise.title)}: your kernel">'
        f'</textarea><p class="kernel-editor-actions">{buttons}</p>'
        '<div class="kernel-editor-output" data-output aria-live="polite" '
        "hidden></div></div>"
    )


#: (action, label, extra class) of the editor's buttons, in order.
BUTTONS = (
    ("check", "Check", " md-button--primary"),
    ("run", "Run", ""),
    ("reset", "Starter", ""),
)


def where_it_runs() -> str:
    """Every exercise: on the page, or the local grader, with the largest
    input one of its cases needs."""
    from scripts.practice_web.cases import input_bytes, runs_on_page

    rows = []
    for e in EXERCISES:
        largest = max(input_bytes(s) for c in e.cases for s in c.inputs)
        where = "on the page" if runs_on_page(e) else "local grader"
        rows.append([f"`{e.name}`", where, _size(largest)])
    return markdown_table(["exercise", "graded", "largest input"], rows)


def _size(count: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


def runtime_bytes() -> int:
    """What a first Check downloads: the Pyodide files and the Python."""
    files = [calculators.PYODIDE_SOURCE / f for f in calculators.PYODIDE_FILES]
    files += [ROOT / f for f in PYTHON_FILES]
    return sum(f.stat().st_size for f in files if f.is_file())


def facts() -> dict[str, str]:
    from scripts.practice_web.cases import PAGE_BYTES

    return {"runtime_size": _size(runtime_bytes()), "page_bytes": _size(PAGE_BYTES)}


def write_site(site_dir: Path) -> None:
    """Copy the worker's Python and the Pyodide runtime into the site."""
    for rel in PYTHON_FILES:
        target = site_dir / SITE_PYTHON / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, target)
    for name in calculators.PYODIDE_FILES:
        source = calculators.PYODIDE_SOURCE / name
        target = site_dir / calculators.SITE_PYODIDE / name
        if source.is_file() and not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
