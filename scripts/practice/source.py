"""Everything the grader can say before torch is imported: the exercise a
name means (hyphens or underscores, close names suggested), the learner's
file read as UTF-8 Python, its syntax, the function the exercise calls, and
imports that would hand in someone else's kernel (the folded solutions in
``practice/``, ``scripts.practice`` and its references, the course's
``kernels/``). A missing file or
a misspelt name is answered in well under a second."""

from __future__ import annotations

import ast
import difflib
from pathlib import Path

from scripts.practice.exercises import BY_NAME, COMMAND, Exercise

EXIT_PASSED, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: The repository's own packages: importing one hands in the course's kernel,
#: a folded solution or the grader's reference instead of the learner's own.
REFUSED_MODULES = ("practice", "scripts", "snippets", "kernels", "evidence")


class PracticeError(Exception):
    """What the learner must fix before the grader can run the file."""


class Refused(Exception):
    """A file that runs, but whose pass would not be the learner's kernel:
    the line and what it used."""

    def __init__(self, line: int, what: str, rule: str):
        super().__init__(line, what, rule)
        self.line, self.what, self.rule = line, what, rule


def exercise_named(name: str) -> Exercise:
    key = name.strip().replace("_", "-").lower()
    if key in BY_NAME:
        return BY_NAME[key]
    close = difflib.get_close_matches(key, list(BY_NAME), n=3, cutoff=0.5)
    close += [n for n in BY_NAME if key and key.split("-")[0] in n][: 3 - len(close)]
    close = list(dict.fromkeys(close))
    also = f" (did you mean {', '.join(close)}?)" if close else ""
    raise PracticeError(f"no exercise {name!r}{also}; `{COMMAND} list` lists them")


def read_source(path: Path) -> str:
    if not path.exists():
        raise PracticeError(f"{path}: no such file; give the path of your .py file")
    if not path.is_file():
        raise PracticeError(f"{path}: not a file; give the path of your .py file")
    raw = path.read_bytes()
    if len(raw) > 1 << 20:
        raise PracticeError(f"{path}: over 1 MiB; a practice solution is a page")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PracticeError(
            f"{path}: not a Python source file (not UTF-8 text); save it as .py text"
        ) from None


def check_source(exercise: Exercise, source: str, path: Path) -> None:
    """Syntax and the function the exercise calls (PracticeError), then
    imports of someone else's answer (Refused)."""
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise PracticeError(
            f"{path}:{exc.lineno}: {exc.msg}; fix the syntax and check again"
        ) from None
    functions = {
        node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)
    }
    if exercise.function not in functions:
        found = ", ".join(sorted(functions)) or "none"
        raise PracticeError(
            f"{path}: defines no top-level function {exercise.function!r} (found: "
            f"{found}); the exercise calls {exercise.signature.split('#')[0].strip()}"
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
