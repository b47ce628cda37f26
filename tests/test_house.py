"""The house rules that measure what they mean (issue 45).

1. **A function fits on a screen**: no function or method in ``kernels/``,
   ``evidence/``, ``snippets/`` or ``scripts/`` is longer than
   ``MAX_FUNCTION_LINES``, from its ``def`` to its last line. A file may be
   as long as its one job needs; a long function is where a reader gets lost.
   The exceptions are named in ``LONG_FUNCTIONS`` with their length today and
   a reason: an entry may shrink, never grow, and an entry the code no longer
   needs (gone, or now under the ceiling) fails until it is removed.
2. **Privates stay private**: no product module imports another module's
   ``_private`` name, neither ``from m import _x`` nor ``m._x`` on a module it
   imported. A helper two modules need is public in one of them.
3. **Each package has a map**: the ``__init__`` docstring of every package
   under ``kernels/``, ``evidence/``, ``scripts/`` and ``snippets/lib/`` lists
   each of its modules and subpackages, one line each, as
   ``- ``name``: its one job.``, and lists nothing that is not there. Lesson
   folders (``snippets/<page>/``) are exempt: the page they are named after is
   their map.

Each checker takes the root of a tree; the known-broken cases run it on a
small tree in ``tmp_path``, so each rule is seen failing.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT_DIRS = ("kernels", "evidence", "snippets", "scripts")
MAPPED_DIRS = ("kernels", "evidence", "scripts", "snippets/lib")

#: The ceiling on a function's length, in lines (def to last line).
MAX_FUNCTION_LINES = 60

_KERNEL = (
    "a Triton kernel body: one program's code, which a page shows whole; a "
    "split changes the compiled artifact and its committed hashes"
)
_FIGURE = "one matplotlib figure drawn step by step; to split by panel"
_QUALIFY = "scripts/qualify is being restructured by its own issue; split there"
_PRACTICE = "scripts/practice is being restructured by its own issue; split there"
_GPU_TOOL = (
    "a GPU tool's main loop, checked only by its dry run here; split when a "
    "device run can confirm the result files come out the same"
)

#: "path:Qualified.name" -> (lines today, why it is not split yet). Shrink only.
LONG_FUNCTIONS: dict[str, tuple[int, str]] = {
    "kernels/matmul/gluon.py:matmul_gluon_sm90_kernel": (76, _KERNEL),
    "kernels/matmul/gluon.py:matmul_gluon_sm100_kernel": (91, _KERNEL),
    "kernels/scan/versions.py:scan_v3_kernel": (64, _KERNEL),
    "snippets/hopper_tensor_cores/wgmma.py:warpgroup_figure": (61, _FIGURE),
    "snippets/kv_cache_management/kv_cache.py:pool_picture": (62, _FIGURE),
    "snippets/napkin_math_and_the_roofline/roofline.py:roofline_figure": (
        90,
        _FIGURE,
    ),
    "snippets/tiled_matmul/diagram.py:tile_strips_figure": (85, _FIGURE),
    "snippets/lib/serving/engine.py:Engine.__init__": (
        63,
        "the engine's state, set field by field with why; a page shows it",
    ),
    "snippets/lib/serving/engine.py:Engine.step": (
        62,
        "one decode step as the serving lesson shows it, in one piece",
    ),
    "snippets/parallelism_budgets/budgets.py:layout_budget": (
        65,
        "one budget's terms in the order the page derives them",
    ),
    "scripts/bench/migrate.py:migrate_comparison": (
        120,
        "a one-off converter of old result files, kept for the record",
    ),
    "scripts/bench/runner.py:run_shape": (132, _GPU_TOOL),
    "scripts/bench/runner.py:run": (132, _GPU_TOOL),
    "scripts/bench/timing.py:time_interleaved": (86, _GPU_TOOL),
    "scripts/collectives/__main__.py:parse": (80, "one argparse table"),
    "scripts/collectives/sweep.py:run": (80, _GPU_TOOL),
    "scripts/collectives/worker.py:main": (93, _GPU_TOOL),
    "scripts/serving/loadgen.py:run": (87, _GPU_TOOL),
    "scripts/tiny_lm/__main__.py:main": (65, "the notebook run, step by step"),
    "scripts/site/bench_pages.py:result_block": (
        68,
        "one result's table and banners; to split by banner",
    ),
    "scripts/site/bench_plot.py:render_svg": (95, "one SVG plot drawn in order"),
    "scripts/qualify/__main__.py:parse_args": (65, _QUALIFY),
    "scripts/qualify/cases.py:cases": (383, "a data table: one row per case"),
    "scripts/qualify/products.py:matrix_product_cases": (
        95,
        "a data table: one row per case",
    ),
    "scripts/qualify/evaluator.py:run_cases": (144, _QUALIFY),
    "scripts/qualify/evaluator.py:qualify": (64, _QUALIFY),
    "scripts/qualify/evaluator.py:_run": (79, _QUALIFY),
    "scripts/qualify/gate.py:refusals": (78, _QUALIFY),
    "scripts/qualify/judge.py:judge_kernel_call": (121, _QUALIFY),
    "scripts/qualify/rows.py:row_cases": (84, "a data table: one row per case"),
}


def product_files(root: Path) -> list[Path]:
    """Every .py file under the product folders, relative to root."""
    return sorted(
        path.relative_to(root)
        for top in PRODUCT_DIRS
        for path in (root / top).rglob("*.py")
        if "__pycache__" not in path.parts
    )


@functools.cache
def _parse(root: Path, path: Path) -> ast.Module:
    return ast.parse((root / path).read_text(encoding="utf-8"), filename=str(path))


# ------------------------------------------------------- 1. function length


def _functions(node: ast.AST, prefix: str = ""):
    """(qualified name, node) of every function and method under node."""
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
            continue  # expressions hold no def statement
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = f"{prefix}{child.name}"
            yield name, child
            yield from _functions(child, f"{name}.")
        elif isinstance(child, ast.ClassDef):
            yield from _functions(child, f"{prefix}{child.name}.")
        else:
            yield from _functions(child, prefix)


def long_functions(root: Path) -> dict[str, int]:
    """``path:Qualified.name`` -> lines, for each function over the ceiling."""
    found = {}
    for path in product_files(root):
        for name, node in _functions(_parse(root, path)):
            lines = node.end_lineno - node.lineno + 1
            if lines > MAX_FUNCTION_LINES:
                found[f"{path.as_posix()}:{name}"] = lines
    return found


def length_problems(found: dict[str, int], allowed: dict[str, tuple]) -> list[str]:
    """What breaks rule 1, given what is long and what is allowed."""
    problems = []
    for key, lines in sorted(found.items()):
        if key not in allowed:
            problems.append(
                f"{key}: {lines} lines (the ceiling is {MAX_FUNCTION_LINES})"
            )
        elif lines > allowed[key][0]:
            problems.append(f"{key}: grew to {lines} lines (allowed {allowed[key][0]})")
    for key in sorted(set(allowed) - set(found)):
        problems.append(f"{key}: no longer over the ceiling; remove it from the list")
    return problems


def test_no_function_is_over_the_ceiling_unless_listed():
    assert length_problems(long_functions(ROOT), LONG_FUNCTIONS) == []


def test_every_listed_long_function_says_why():
    for key, (lines, reason) in LONG_FUNCTIONS.items():
        assert lines > MAX_FUNCTION_LINES and len(reason) > 10, key


def test_the_length_rule_names_a_long_function_and_a_stale_entry(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES - 1))
    module = tmp_path / "scripts" / "tool" / "long.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        f"def fits():\n{body}\n\nclass C:\n    def long(self):\n"
        + body.replace("    ", "        ")
        + "        y = 1\n"
    )
    found = long_functions(tmp_path)
    assert found == {"scripts/tool/long.py:C.long": MAX_FUNCTION_LINES + 1}
    allowed = {"scripts/tool/gone.py:f": (70, "why")}
    assert length_problems(found, allowed) == [
        f"scripts/tool/long.py:C.long: 61 lines (the ceiling is {MAX_FUNCTION_LINES})",
        "scripts/tool/gone.py:f: no longer over the ceiling; remove it from the list",
    ]
    grown = {"scripts/tool/long.py:C.long": (60, "why")}
    assert length_problems(found, grown) == [
        "scripts/tool/long.py:C.long: grew to 61 lines (allowed 60)"
    ]


# ------------------------------------------------------- 2. private imports


def _module_name(path: Path) -> str:
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(node: ast.ImportFrom, path: Path) -> str:
    """The absolute module a ``from ... import`` names, from file ``path``."""
    if not node.level:
        return node.module or ""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _statements(node: ast.AST):
    """Every statement under node (imports are statements; expressions hold
    none, so they are not walked)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
            yield child
            yield from _statements(child)


def private_imports(root: Path) -> list[str]:
    """Rule 2: one line per private name a module takes from another."""
    problems = []
    for path in product_files(root):
        tree, own = _parse(root, path), _module_name(path)
        modules = {}  # local name -> the project module it is bound to
        for node in _statements(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] in PRODUCT_DIRS:
                        local = alias.asname or alias.name.split(".")[0]
                        modules[local] = alias.asname and alias.name or local
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(node, path)
                if source.split(".")[0] not in PRODUCT_DIRS:
                    continue
                for alias in node.names:
                    if _is_private(alias.name) and source != own:
                        problems.append(
                            f"{path.as_posix()}:{node.lineno}: "
                            f"{alias.name} from {source}"
                        )
                    modules[alias.asname or alias.name] = f"{source}.{alias.name}"
        reach_in = re.compile(rf"\b(?:{'|'.join(map(re.escape, modules))})\._")
        if not modules or not reach_in.search((root / path).read_text("utf-8")):
            continue  # no `module._name` in the text: skip the walk
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and _is_private(node.attr)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and modules[node.value.id] != own
            ):
                problems.append(
                    f"{path.as_posix()}:{node.lineno}: "
                    f"{node.attr} from {modules[node.value.id]}"
                )
    return problems


def test_no_module_imports_another_modules_private_name():
    assert private_imports(ROOT) == []


def test_the_private_rule_names_each_way_of_reaching_in(tmp_path):
    site = tmp_path / "scripts" / "site"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("")
    (site / "pages.py").write_text("def _table():\n    return ''\n_corpus = {}\n")
    (site / "memo.py").write_text(
        "from scripts.site.pages import _table, public\n"
        "from . import pages\n"
        "import scripts.site.pages as p\n"
        "x = pages._corpus, p._table(), pages.__name__\n"
        "from .pages import _corpus\n"
    )
    (site / "own.py").write_text("from scripts.site.own import _mine\n_mine = 1\n")
    assert private_imports(tmp_path) == [
        "scripts/site/memo.py:1: _table from scripts.site.pages",
        "scripts/site/memo.py:5: _corpus from scripts.site.pages",
        "scripts/site/memo.py:4: _corpus from scripts.site.pages",
        "scripts/site/memo.py:4: _table from scripts.site.pages",
    ]


# ------------------------------------------------------------ 3. module maps

MAP_LINE_RE = re.compile(
    r"^- ``(?P<name>[\w.]+)``:[ \t]*(?P<job>[^\n]*\S)?", re.MULTILINE
)


def packages(root: Path) -> list[Path]:
    """Every package folder that must carry a map, relative to root."""
    return sorted(
        init.parent.relative_to(root)
        for top in MAPPED_DIRS
        for init in (root / top).rglob("__init__.py")
        if "__pycache__" not in init.parts
    )


def module_map_problems(root: Path) -> list[str]:
    """Rule 3: one line per package whose map is missing a module, names one
    that is not there, or gives a module no job."""
    problems = []
    for package in packages(root):
        folder = root / package
        present = {p.stem for p in folder.glob("*.py") if p.name != "__init__.py"}
        present |= {p.parent.name for p in folder.glob("*/__init__.py")}
        doc = ast.get_docstring(_parse(root, package / "__init__.py")) or ""
        listed = {m["name"]: m["job"] for m in MAP_LINE_RE.finditer(doc)}
        where = f"{package.as_posix()}/__init__.py"
        for name in sorted(present - set(listed)):
            problems.append(f"{where}: does not list {name}")
        for name in sorted(set(listed) - present):
            problems.append(f"{where}: lists {name}, which is not in the package")
        for name in sorted(n for n in set(listed) & present if not listed[n]):
            problems.append(f"{where}: gives {name} no job")
    return problems


def test_every_package_lists_its_modules_with_one_job_each():
    assert module_map_problems(ROOT) == []


def test_the_map_rule_names_a_missing_an_extra_and_an_empty_entry(tmp_path):
    package = tmp_path / "scripts" / "tool"
    (package / "inner").mkdir(parents=True)
    (package / "inner" / "__init__.py").write_text('"""- ``x``: gone."""\n')
    for name in ("listed", "unlisted", "jobless"):
        (package / f"{name}.py").write_text("")
    (package / "__init__.py").write_text(
        '"""A tool.\n\n- ``listed``: its job.\n- ``jobless``:\n- ``ghost``: x.\n"""\n'
    )
    assert module_map_problems(tmp_path) == [
        "scripts/tool/__init__.py: does not list inner",
        "scripts/tool/__init__.py: does not list unlisted",
        "scripts/tool/__init__.py: lists ghost, which is not in the package",
        "scripts/tool/__init__.py: gives jobless no job",
        "scripts/tool/inner/__init__.py: lists x, which is not in the package",
    ]
