"""The repository's layout rules, checked on the tree (issue 12).

1. Tests mirror kernels/, evidence/, snippets/ and scripts/ path for path:
   ``A/B/c.py`` is tested in ``tests/A/B/test_c.py``, a package's
   ``A/B/__init__.py`` (when it holds code) in ``tests/A/B/test_B.py``, and
   ``A/B/__main__.py`` in ``tests/A/B/test_main.py``.
2. No product file edits ``sys.path`` or silences E402: the project is
   installed, and tools run as ``python -m scripts.<pkg>``.
3. A snippet never imports anything under ``scripts/``.
3b. A lesson (``snippets/<page>/``) imports only its own folder, the shared
   lesson library ``snippets/lib/``, ``kernels/`` and the ground
   ``evidence/``; the library imports no lesson. Arrows point one way:
   ``kernels <- evidence <- snippets (lib <- lessons) <- scripts``.
4. ``scripts/site/`` and ``evidence/`` import neither torch, Triton
   nor a tool that produces data when they are imported, so the site build
   stays light; ``evidence/`` imports no snippet and nothing under
   ``scripts/`` at all.
5. The tools (bench, artifacts, qualify, catalog) never import the site
   layer: arrows point down only.

Imports are read with ``ast``, not by matching text, so a docstring that
names a module is not an import. Each checker takes the root of a tree; the
known-broken cases run it on a small tree in ``tmp_path``.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT_DIRS = ("kernels", "evidence", "snippets", "scripts")
TOOLS = ("bench", "artifacts", "qualify", "catalog")


def product_files(root: Path) -> list[Path]:
    """Every .py file under the product folders, relative to root."""
    found = [
        path.relative_to(root)
        for top in PRODUCT_DIRS
        for path in (root / top).rglob("*.py")
        if "__pycache__" not in path.parts
    ]
    return sorted(found, key=lambda path: path.as_posix())


def _tree(root: Path, path: Path) -> ast.Module:
    return ast.parse((root / path).read_text(encoding="utf-8"), filename=str(path))


def _has_code(tree: ast.Module) -> bool:
    """Anything beyond a docstring and ``from __future__`` imports."""
    for node in tree.body:
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if not (docstring or future):
            return True
    return False


def mirrored_test(path: Path) -> Path:
    """Where the tests of one product file live."""
    if path.name == "__init__.py":
        return Path("tests", path.parent, f"test_{path.parent.name}.py")
    if path.name == "__main__.py":
        return Path("tests", path.parent, "test_main.py")
    return Path("tests", path.parent, f"test_{path.name}")


# ------------------------------------------------------------ rule checkers


def missing_tests(root: Path) -> list[str]:
    """Rule 1: one line per product file whose mirrored test file is absent."""
    problems = []
    for path in product_files(root):
        if path.name == "__init__.py" and not _has_code(_tree(root, path)):
            continue
        test = mirrored_test(path)
        if not (root / test).is_file():
            problems.append(f"{path.as_posix()}: no {test.as_posix()}")
    return problems


def _is_sys_path(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "path"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def _e402_lines(text: str) -> Iterator[int]:
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            comment = token.string.lower().replace(" ", "")
            if "noqa:" in comment and "e402" in comment.split("noqa:", 1)[1]:
                yield token.start[0]


def path_hacks(root: Path) -> list[str]:
    """Rule 2: sys.path edits and E402 waivers in product files."""
    problems = []  # (path, line, what)
    for path in product_files(root):
        text = (root / path).read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            edits = (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and _is_sys_path(node.func.value)
            )
            targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
            assigns = isinstance(node, (ast.Assign, ast.AugAssign)) and any(
                _is_sys_path(t) or _is_sys_path(getattr(t, "value", None))
                for t in targets
            )
            if edits or assigns:
                problems.append((path.as_posix(), node.lineno, "edits sys.path"))
        for line in _e402_lines(text):
            problems.append((path.as_posix(), line, "noqa: E402"))
    return [f"{path}:{line}: {what}" for path, line, what in sorted(problems)]


def _package(path: Path) -> list[str]:
    """The package a module's relative imports resolve against."""
    parts = list(path.with_suffix("").parts)
    return parts[:-1]  # __init__.py: the package itself; else its parent


def _imported(node: ast.AST, path: Path) -> list[str]:
    """Dotted names one node imports (with ``from X import a``: X and X.a,
    as ``a`` may be a submodule)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            package = _package(path)
            base = package[: len(package) - node.level + 1]
            module = ".".join([*base, *([node.module] if node.module else [])])
        else:
            module = node.module or ""
        return [module, *(f"{module}.{alias.name}" for alias in node.names)]
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        first = node.args[0]
        if name in ("import_module", "__import__") and isinstance(first, ast.Constant):
            return [str(first.value)]
    return []


def _is_type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _module_level(tree: ast.Module) -> Iterator[ast.AST]:
    """Nodes that run when the module is imported: not inside a function,
    nor under ``if TYPE_CHECKING``."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if _is_type_checking(node):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))


def _names(prefixes: tuple[str, ...], name: str) -> bool:
    return any(name == p or name.startswith(f"{p}.") for p in prefixes)


def forbidden_imports(
    root: Path, folders: tuple[str, ...], banned: tuple[str, ...], module_level: bool
) -> list[str]:
    """Imports of ``banned`` modules (or their submodules) by files under
    ``folders``: anywhere in the file, or only at import time."""
    problems = []
    for path in product_files(root):
        if not any(path.as_posix().startswith(f"{f}/") for f in folders):
            continue
        tree = _tree(root, path)
        nodes = _module_level(tree) if module_level else ast.walk(tree)
        for node in nodes:
            hits = sorted({n for n in _imported(node, path) if _names(banned, n)})
            if hits:
                problems.append(
                    f"{path.as_posix()}:{node.lineno}: imports {', '.join(hits)}"
                )
    return sorted(problems)


def snippet_tool_imports(root: Path) -> list[str]:
    """Rule 3."""
    return forbidden_imports(root, ("snippets",), ("scripts",), module_level=False)


def lesson_imports(root: Path) -> list[str]:
    """Rule 3b: one line per import of another lesson's folder (or, from the
    library, of any lesson)."""
    problems = []
    for path in product_files(root):
        parts = path.parts
        if parts[0] != "snippets" or len(parts) < 3:
            continue
        own = parts[1]
        for node in ast.walk(_tree(root, path)):
            for name in _imported(node, path):
                bits = name.split(".")
                if bits[0] != "snippets" or len(bits) < 2 or bits[1] == "lib":
                    continue
                if own == "lib" or bits[1] != own:
                    problems.append(f"{path.as_posix()}:{node.lineno}: imports {name}")
                    break
    return sorted(set(problems))


SITE_BANNED = ("torch", "triton", *(f"scripts.{t}" for t in (*TOOLS, "tiny_lm")))


def site_layer_imports(root: Path) -> list[str]:
    """Rule 4."""
    folders = ("scripts/site", "evidence")
    site = forbidden_imports(root, folders, SITE_BANNED, module_level=True)
    ground = forbidden_imports(
        root, ("evidence",), ("snippets", "scripts"), module_level=False
    )
    return sorted(set(site + ground))


def tool_site_imports(root: Path) -> list[str]:
    """Rule 5."""
    folders = tuple(f"scripts/{tool}" for tool in TOOLS)
    return forbidden_imports(root, folders, ("scripts.site",), module_level=False)


# ------------------------------------------------------------ the real tree


def test_every_product_module_has_its_mirrored_test():
    problems = missing_tests(ROOT)
    assert not problems, "missing test files:\n" + "\n".join(problems)


def test_no_product_file_edits_sys_path():
    problems = path_hacks(ROOT)
    assert not problems, "\n".join(problems)


def test_snippets_never_import_scripts():
    problems = snippet_tool_imports(ROOT)
    assert not problems, "\n".join(problems)


def test_lessons_import_no_other_lesson():
    problems = lesson_imports(ROOT)
    assert not problems, "lesson-to-lesson imports:\n" + "\n".join(problems)


def test_site_and_results_import_no_torch_triton_or_tool():
    problems = site_layer_imports(ROOT)
    assert not problems, "\n".join(problems)


def test_tools_never_import_the_site_layer():
    problems = tool_site_imports(ROOT)
    assert not problems, "\n".join(problems)


def test_the_checkers_see_the_real_tree():
    # Guards against a checker that passes because it reads nothing.
    paths = {p.as_posix() for p in product_files(ROOT)}
    assert {"kernels/descriptor.py", "evidence/__init__.py"} <= paths
    assert any(p.startswith("snippets/") for p in paths)
    assert mirrored_test(Path("evidence/__init__.py")) == Path(
        "tests/evidence/test_evidence.py"
    )


# ------------------------------------------------------------ known-broken trees


def _make(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_missing_tests_names_each_missing_path(tmp_path):
    root = _make(
        tmp_path,
        {
            "kernels/__init__.py": '"""Only a docstring: needs no test."""\n',
            "kernels/op.py": "X = 1\n",
            "kernels/tested.py": "X = 1\n",
            "tests/kernels/test_tested.py": "",
            "scripts/pkg/__init__.py": "from __future__ import annotations\nY = 2\n",
            "scripts/pkg/__main__.py": "print()\n",
            "snippets/page/topic.py": "Z = 3\n",
            "evidence/tables.py": "T = 4\n",
            "tests/evidence/test_tables.py": "",
        },
    )
    assert missing_tests(root) == [
        "kernels/op.py: no tests/kernels/test_op.py",
        "scripts/pkg/__init__.py: no tests/scripts/pkg/test_pkg.py",
        "scripts/pkg/__main__.py: no tests/scripts/pkg/test_main.py",
        "snippets/page/topic.py: no tests/snippets/page/test_topic.py",
    ]
    _make(
        root,
        {
            "tests/kernels/test_op.py": "",
            "tests/scripts/pkg/test_pkg.py": "",
            "tests/scripts/pkg/test_main.py": "",
            "tests/snippets/page/test_topic.py": "",
        },
    )
    assert missing_tests(root) == []


def test_path_hacks_are_found_in_product_files_only(tmp_path):
    root = _make(
        tmp_path,
        {
            "scripts/tool.py": (
                '"""Mentions sys.path.insert and noqa: E402 in prose only."""\n'
                "import sys\n"
                "sys.path.insert(0, '.')\n"
                "import os  # noqa: E402\n"
                "sys.path.append('..')\n"
                "sys.path[:0] = ['x']\n"
            ),
            "snippets/page/ok.py": "import sys\nprint(sys.path)\n",
            "tests/conftest.py": "import sys\nsys.path.insert(0, '.')\n",
        },
    )
    assert path_hacks(root) == [
        "scripts/tool.py:3: edits sys.path",
        "scripts/tool.py:4: noqa: E402",
        "scripts/tool.py:5: edits sys.path",
        "scripts/tool.py:6: edits sys.path",
    ]


def test_a_snippet_importing_scripts_is_found(tmp_path):
    root = _make(
        tmp_path,
        {
            "snippets/page/a.py": "from scripts.bench import runner\n",
            "snippets/page/b.py": "def f():\n    import scripts.site.tables\n",
            "snippets/page/c.py": "from scripts import qualify\n",
            "snippets/page/ground.py": "from evidence import read\n",
            "snippets/page/ok.py": (
                '"""Not an import: from scripts import results."""\n'
                "import kernels.inputs\n"
                "from snippets.page import a\n"
            ),
            "scripts/site/x.py": "import evidence\n",
        },
    )
    assert snippet_tool_imports(root) == [
        "snippets/page/a.py:1: imports scripts.bench, scripts.bench.runner",
        "snippets/page/b.py:2: imports scripts.site.tables",
        "snippets/page/c.py:1: imports scripts, scripts.qualify",
    ]


def test_a_lesson_importing_another_lesson_is_found(tmp_path):
    root = _make(
        tmp_path,
        {
            "snippets/page/a.py": "from snippets.other.model import f\n",
            "snippets/page/b.py": "def g():\n    import snippets.later.engine\n",
            "snippets/lib/shared.py": "from snippets.page import a\n",
            "snippets/page/ok.py": (
                '"""Not an import: from snippets.other import x."""\n'
                "from snippets.page.a import f\n"
                "from snippets.lib.shared import h\n"
                "import kernels.inputs\nfrom evidence import read\n"
            ),
            "snippets/lib/ok.py": "from snippets.lib.shared import h\n",
        },
    )
    assert lesson_imports(root) == [
        "snippets/lib/shared.py:1: imports snippets.page",
        "snippets/page/a.py:1: imports snippets.other.model",
        "snippets/page/b.py:2: imports snippets.later.engine",
    ]


def test_site_layer_importing_torch_or_a_tool_is_found(tmp_path):
    root = _make(
        tmp_path,
        {
            "scripts/site/a.py": "import torch\n",
            "scripts/site/b.py": "from ..bench import runner\n",
            "evidence/__init__.py": "from . import schemas\n",
            "evidence/c.py": "try:\n    import triton.language as tl\n"
            "except ImportError:\n    tl = None\n",
            "evidence/d.py": "from scripts import qualify\n",
            "evidence/e.py": "def f():\n    from snippets.page import a\n",
            "scripts/site/ok.py": (
                "from typing import TYPE_CHECKING\n"
                "from evidence import read\n"
                "if TYPE_CHECKING:\n    import torch\n"
                "def f():\n    import torch\n    return torch\n"
            ),
            "scripts/bench/e.py": "import torch\n",
        },
    )
    assert site_layer_imports(root) == [
        "evidence/c.py:2: imports triton.language",
        "evidence/d.py:1: imports scripts, scripts.qualify",
        "evidence/d.py:1: imports scripts.qualify",
        "evidence/e.py:2: imports snippets.page, snippets.page.a",
        "scripts/site/a.py:1: imports torch",
        "scripts/site/b.py:1: imports scripts.bench, scripts.bench.runner",
    ]


def test_a_tool_importing_the_site_layer_is_found(tmp_path):
    root = _make(
        tmp_path,
        {
            "scripts/bench/a.py": "from scripts.site.tables import markdown_table\n",
            "scripts/qualify/b.py": "def f():\n    from ..site import pages\n",
            "scripts/catalog/__main__.py": (
                "import importlib\nimportlib.import_module('scripts.site.hooks')\n"
            ),
            "scripts/artifacts/ok.py": "from scripts import results\n",
            "scripts/site/c.py": "import scripts.site.tables\n",
        },
    )
    assert tool_site_imports(root) == [
        "scripts/bench/a.py:1: imports scripts.site.tables, "
        "scripts.site.tables.markdown_table",
        "scripts/catalog/__main__.py:2: imports scripts.site.hooks",
        "scripts/qualify/b.py:2: imports scripts.site, scripts.site.pages",
    ]


@pytest.mark.parametrize(
    "path, level, module, resolved",
    [
        ("scripts/site/hooks.py", 1, "tables", "scripts.site.tables"),
        ("scripts/site/hooks.py", 2, "bench", "scripts.bench"),
        ("scripts/site/__init__.py", 1, "tables", "scripts.site.tables"),
    ],
    ids=["sibling", "parent", "package-init"],
)
def test_relative_imports_resolve_like_python(path, level, module, resolved):
    node = ast.ImportFrom(module=module, names=[ast.alias("x")], level=level)
    assert _imported(node, Path(path))[0] == resolved
