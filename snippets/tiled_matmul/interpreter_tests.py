"""What the matmul kernel's interpreter tests check, read from the test file.

Shown on docs/kernels/matrix-multiplication/tiled-matmul.md. The page does
not retype the test's shapes or names: this module parses
tests/kernels/matmul/test_versions.py (without importing or running it) and lists
its shape tables and its test functions with the first line of each
docstring. Evidence kind: it describes what the interpreter tests check; the
tests themselves are the evidence, run by `make test`.

Run it as a script to print the list.
"""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEST_FILE = ROOT / "tests" / "kernels" / "matmul" / "test_versions.py"


def _literal(node: ast.AST):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def shape_tables(tree: ast.Module) -> dict[str, dict[str, tuple]]:
    """Module-level constants whose name contains SHAPE and whose value is
    a literal list of tuples or a dict of named tuples: {constant: {label:
    shape}}, labels being the dict's keys or '' for a list."""
    tables = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = _literal(node.value)
        if isinstance(value, list | tuple):
            value = {f"#{i}": item for i, item in enumerate(value)}
        if not isinstance(value, dict) or not value:
            continue
        if not all(isinstance(shape, tuple) for shape in value.values()):
            continue
        for target in targets:
            if isinstance(target, ast.Name) and "SHAPE" in target.id.upper():
                tables[target.id] = value
    return tables


def test_functions(tree: ast.Module) -> list[tuple[str, str]]:
    """(name, first docstring line or '') of each top-level test."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            doc = ast.get_docstring(node) or ""
            found.append((node.name, doc.strip().splitlines()[0] if doc else ""))
    return found


def _fmt_shape(shape: tuple) -> str:
    return " × ".join(str(part) for part in shape)


def _fmt_label(label: str) -> str:
    """' (primes)' for 'primes-257x263x67'; '' when the label is only the
    shape again or a list position."""
    words = re.sub(r"-?\d+(x\d+)+$", "", label)
    return f" ({words})" if words and not label.startswith("#") else ""


def coverage_text(path: Path = TEST_FILE) -> str:
    """Markdown: the shapes and the checks of the interpreter test file."""
    path = Path(path)
    if not path.is_file():
        # A moved test file must break the build, not turn into a note.
        raise FileNotFoundError(f"no interpreter test file at {path}")
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    parts = []
    for name, shapes in shape_tables(tree).items():
        listed = ", ".join(
            f"`{_fmt_shape(shape)}`" + _fmt_label(label)
            for label, shape in shapes.items()
        )
        parts.append(f"Shapes (`M × N × K`, `{name}` in `{rel}`): {listed}.")
        parts.append("")
    tests = test_functions(tree)
    if not tests:
        raise ValueError(f"{rel}: no test functions found")
    parts.append(f"Its {len(tests)} test functions:")
    parts.append("")
    for name, doc in tests:
        words = name.removeprefix("test_").replace("_", " ")
        parts.append(f"- {words}" + (f": {doc}" if doc else ""))
    return "\n".join(parts)


if __name__ == "__main__":
    print(coverage_text())
