"""What the evaluator checks in a candidate's source before any of it runs
(used by ``scripts/qualify/evaluator.py``): it is UTF-8, it parses, and it
defines the function the contract names.
"""

from __future__ import annotations

import ast
from pathlib import Path

from evidence import display_path
from scripts.qualify import review
from scripts.qualify.contract import FUNCTION


class HarnessError(Exception):
    """The evaluator could not evaluate: no file, no function, bad syntax."""


def read_source(path: Path) -> tuple[bytes, str]:
    """The candidate's bytes and text; HarnessError unless it is UTF-8."""
    data = path.read_bytes()
    try:
        return data, data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HarnessError(
            f"{display_path(path)} is not UTF-8 (byte {exc.start}); Python "
            "source must be"
        ) from None


def static_check(path: Path, text: str) -> None:
    """Harness errors found without running the candidate."""
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise HarnessError(
            f"{display_path(path)}: syntax error on line {exc.lineno}: "
            f"{review.escape(str(exc.msg))}"
        ) from exc
    except ValueError as exc:  # null bytes
        raise HarnessError(f"{display_path(path)}: {exc}") from exc
    for node in _module_level(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name == FUNCTION:
                return
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = any(isinstance(t, ast.Name) and t.id == FUNCTION for t in targets)
            if named and not isinstance(node.value, ast.Constant):
                return
        elif isinstance(node, ast.ImportFrom | ast.Import):
            if any((a.asname or a.name.split(".")[-1]) == FUNCTION for a in node.names):
                return
    raise HarnessError(
        f"{display_path(path)} defines no function {FUNCTION}(x, residual)"
    )


def _module_level(tree: ast.Module):
    """Statements run at import: the body, and inside if/try/with/for at
    module level (not inside functions or classes)."""
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        yield node
        if isinstance(node, ast.If | ast.Try | ast.With | ast.For | ast.While):
            for name in ("body", "orelse", "finalbody"):
                todo += getattr(node, name, [])
            for handler in getattr(node, "handlers", []):
                todo += handler.body
