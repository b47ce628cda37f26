"""The practice track's tables, from the exercises' own data
(``scripts/practice/exercises.py``, which imports no torch): the list of
exercises and each one's contract, so a page never retypes a case."""

from __future__ import annotations

import posixpath

from evidence.tables import markdown_table
from scripts.practice.exercises import BY_NAME, EXERCISES, Exercise

VIEWS = {"": "", "transposed": ", a transposed view", "step2": ", every other column"}
FILLS = {
    "randn": "normal",
    "positive": "positive",
    "large": "large (about 100)",
    "nan": "with NaN",
    "counts": "small integers",
    "window": "a 4096-byte window of a 2 GiB tensor",
}


def _link(page: str, lesson: str) -> str:
    """A relative link from one docs page to another, by their source paths."""
    return posixpath.relpath(lesson, posixpath.dirname(page) or ".")


def track_table(page: str = "kernels/practice/index.md") -> str:
    """Every exercise: what it practises and the lesson it practises."""
    rows = []
    for e in EXERCISES:
        kind = "find and fix" if e.find_and_fix else "write"
        shown_on = "find-and-fix" if e.find_and_fix else _group(e)
        rows.append(
            [f"[`{e.name}`]({shown_on}.md#{e.name})", kind, e.topic,
             f"[lesson]({_link(page, e.lesson)})"]
        )  # fmt: skip
    return markdown_table(["exercise", "kind", "practises", "taught in"], rows)


def _group(exercise: Exercise) -> str:
    for page, names in GROUPS.items():
        if exercise.name in names:
            return page
    raise KeyError(exercise.name)


#: Which page shows which exercises (tests check every exercise has one).
GROUPS = {
    "elementwise": ("vector-add", "relu-scale", "strided-copy-2d"),
    "reductions": (
        "row-softmax",
        "reduce-sum-two-pass",
        "reduce-sum-deterministic",
        "rms-norm",
    ),
    "tiles": ("transpose-tiled", "matmul-tiled"),
    "scans-and-attention": ("block-scan", "softmax-merge", "attention-tile-causal"),
    "find-and-fix": (
        "fix-missing-mask",
        "fix-int32-offset-overflow",
        "fix-missing-carry",
    ),
}


def _input_label(spec) -> str:
    shape = "×".join(str(s) for s in spec.shape)
    return f"`{spec.name}` {shape} {spec.dtype}, {FILLS[spec.fill]}{VIEWS[spec.view]}"


def contract(name: str) -> str:
    """One exercise's contract: the call, every case, the tolerance, the
    commands."""
    e = BY_NAME[name]
    rows = [
        [
            c.name,
            "; ".join(_input_label(s) for s in c.inputs),
            f"{'×'.join(str(s) for s in c.out_shape)} {c.out_dtype}",
            ", ".join(f"{k}={v:g}" for k, v in c.params.items()) or "",
        ]
        for c in e.cases
    ]
    if e.tolerance[0] == "exact":
        tolerance = "bit for bit equal to the reference"
    else:
        atol, rtol = e.tolerance[1:]
        tolerance = f"within {atol:g} + {rtol:g} × |reference| of the float64 reference"
    rules = [
        f"**The call:** `{e.signature}`; `out` is allocated for you, its bytes "
        "set to a sentinel, with guard bytes on either side, so an element never "
        "written and a store past either end are both caught.",
        f"**Values:** {tolerance}; NaN where the reference is NaN; the inputs "
        "unchanged.",
    ]
    if e.deterministic:
        rules.append("**Determinism:** called twice, the two outputs' bits must agree.")
    if e.forbidden:
        ruled = ", ".join(f"`{f}`" for f in e.forbidden)
        rules.append(f"**Ruled out:** {ruled} (the grader refuses the attempt).")
    table = markdown_table(["case", "inputs", "out", "arguments"], rows)
    folder = e.folder.name
    commands = (
        "```bash\n"
        f".venv/bin/python -m scripts.practice start {e.name} work/\n"
        f".venv/bin/python -m scripts.practice check {e.name} work/{folder}.py\n"
        "```"
    )
    return "\n\n".join(["\n".join(f"- {r}" for r in rules), table, commands])
