"""The learner trust level's reading of a file, before anything of it runs
and before torch is imported: the file read as UTF-8 Python (at most 1 MiB),
its syntax, the function the exercise calls, and imports that would hand in
someone else's kernel (the folded solutions in ``practice/``, the
repository's ``scripts``, ``snippets``, ``kernels`` and ``evidence``), and
whether some ``tl.store`` or ``tl.load`` has no mask (what the grader's
masking hints are conditioned on). The hostile level's gate is ``gate.py``:
an allow-list, not this deny-list, for a file nobody vouches for.
"""

from __future__ import annotations

import ast
from pathlib import Path

#: The repository's own packages: importing one hands in the course's kernel,
#: a folded solution or the grader's reference instead of the learner's own.
REFUSED_MODULES = ("practice", "scripts", "snippets", "kernels", "evidence")


class LearnerError(Exception):
    """What the learner must fix before the file can run."""


class Refused(Exception):
    """A file that runs, but whose pass would not be the learner's kernel:
    the line and what it used."""

    def __init__(self, line: int, what: str, rule: str):
        super().__init__(line, what, rule)
        self.line, self.what, self.rule = line, what, rule


def read_source(path: Path) -> str:
    if not path.exists():
        raise LearnerError(f"{path}: no such file; give the path of your .py file")
    if not path.is_file():
        raise LearnerError(f"{path}: not a file; give the path of your .py file")
    raw = path.read_bytes()
    if len(raw) > 1 << 20:
        raise LearnerError(f"{path}: over 1 MiB; a practice solution is a page")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LearnerError(
            f"{path}: not a Python source file (not UTF-8 text); save it as .py text"
        ) from None


def check_source(function: str, signature: str, source: str, path: Path) -> None:
    """Syntax and the function the exercise calls (LearnerError), then
    imports of someone else's answer (Refused). ``signature``: as the
    exercise's page shows it, a comment after ``#`` allowed."""
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise LearnerError(
            f"{path}:{exc.lineno}: {exc.msg}; fix the syntax and check again"
        ) from None
    functions = {
        node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)
    }
    if function not in functions:
        found = ", ".join(sorted(functions)) or "none"
        raise LearnerError(
            f"{path}: defines no top-level function {function!r} (found: "
            f"{found}); the exercise calls {signature.split('#')[0].strip()}"
        )
    for node in ast.walk(tree):
        for name in _imported(node):
            if _refused(name):
                raise Refused(node.lineno, name, "import")


def _imported(node: ast.AST) -> list[str]:
    """Module names an import statement, or a string that looks like a
    module path or a file under practice/, names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if not node.value or len(node.value.split()) != 1:
            return []  # a sentence, not a path
        text = node.value.replace("\\", "/")
        dotted = text.replace("/", ".").removesuffix(".py")
        if "practice/" in text or "/" not in text and "." in text:
            return [dotted.split("..")[-1].lstrip(".")]
    return []


def _refused(name: str) -> bool:
    top = name.split(".")[0]
    return top in REFUSED_MODULES or ".practice." in f".{name}."


def mask_facts(source: str) -> dict[str, bool]:
    """Whether some ``tl.store`` / ``tl.load`` in the file has no mask (no
    ``mask=``, no third or second positional argument, no
    ``boundary_check=``): what the masking hints are conditioned on."""
    facts = {"store_unmasked": False, "load_unmasked": False}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return facts
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        kind = node.func.attr
        if kind not in ("store", "load"):
            continue
        words = {k.arg for k in node.keywords}
        positional = 3 if kind == "store" else 2
        if not words & {"mask", "boundary_check"} and len(node.args) < positional:
            facts[f"{kind}_unmasked"] = True
    return facts
