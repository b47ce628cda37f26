"""What the evaluator checks in a candidate's source before any of it runs
(used by ``scripts/qualify/evaluator.py``): it is UTF-8, it parses, and it
defines the function the contract names.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

from evidence import display_path
from scripts.qualify import review


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


def parse(path: Path, text: str) -> ast.Module:
    """The source's syntax tree; a harness error if it has none."""
    try:
        return ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise HarnessError(
            f"{display_path(path)}: syntax error on line {exc.lineno}: "
            f"{review.escape(str(exc.msg))}"
        ) from exc
    except ValueError as exc:  # null bytes
        raise HarnessError(f"{display_path(path)}: {exc}") from exc


def static_check(path: Path, tree: ast.Module, function: str, signature: str) -> None:
    """A harness error unless the module binds `function` (found without
    running the candidate)."""
    for node in _module_level(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name == function:
                return
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = any(isinstance(t, ast.Name) and t.id == function for t in targets)
            if named and not isinstance(node.value, ast.Constant):
                return
        elif isinstance(node, ast.ImportFrom | ast.Import):
            if any((a.asname or a.name.split(".")[-1]) == function for a in node.names):
                return
    raise HarnessError(f"{display_path(path)} defines no function {signature}")


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


# --------------------------------------------------------------------------
# The static gate: what a kernel module may use, checked before it runs
# --------------------------------------------------------------------------

#: Modules a candidate may import: what a Triton kernel module needs. The
#: project's own kernel also imports three of the project's modules.
ALLOWED_MODULES = {
    "__future__",
    "math",
    "typing",
    "torch",
    "triton",
    "triton.language",
    "kernels.bounds",
    "kernels.descriptor",
    "kernels.inputs",
    "kernels",
}
#: Modules allowed only when every name they bind is used inside the
#: ``if __name__ == "__main__":`` block, which never runs under the evaluator.
MAIN_ONLY_MODULES = {"json", "pathlib"}
#: Built-in functions that reach objects, code or files a kernel never needs.
REFUSED_CALLS = {
    "getattr": "reads an attribute by a computed name",
    "setattr": "patches another object",
    "delattr": "patches another object",
    "exec": "runs code built at run time",
    "eval": "runs code built at run time",
    "compile": "builds code at run time",
    "globals": "reaches the module's namespace by name",
    "locals": "reaches a frame's namespace by name",
    "vars": "reaches an object's namespace by name",
    "__import__": "imports a module by a computed name",
    "open": "opens files",
    "breakpoint": "stops for a debugger",
    "input": "reads the terminal",
}
#: Attribute chains on torch that reach past the tensor API.
REFUSED_TORCH = (
    "torch.utils",
    "torch.library",
    "torch.ops",
    "torch.classes",
    "torch.hub",
    "torch.multiprocessing",
    "torch.distributed",
    "torch.load",
    "torch.save",
    "torch.set_grad_enabled",
    "torch.manual_seed",
    "torch.random",
    "torch.set_default_dtype",
    "torch.set_default_device",
    "torch.set_num_threads",
    "torch.backends",
)
#: Dunder attributes that only name things.
HARMLESS_DUNDERS = {"__name__", "__qualname__", "__doc__"}
BUILTIN_EXCEPTIONS = {
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}
PATH_TEXT = ("/proc", "/dev", "/tmp", "/sys")


def gate_rules() -> list[str]:
    """The gate's rules in words, for the contract and the pages."""
    return [
        "imports only "
        + ", ".join(sorted(ALLOWED_MODULES - {"kernels"}))
        + " (and "
        + ", ".join(sorted(MAIN_ONLY_MODULES))
        + " when used only under if __name__ == '__main__')",
        "no attribute that starts with an underscore and no name that starts "
        "with two, except " + ", ".join(sorted(HARMLESS_DUNDERS)),
        "no assignment to or deletion of an attribute of an imported module",
        "no call of " + ", ".join(sorted(REFUSED_CALLS)),
        "no " + ", ".join(REFUSED_TORCH),
        "no class named like a built-in exception, or deriving from two of them",
        "no bare except, and no except BaseException",
        "no string naming " + ", ".join(PATH_TEXT),
    ]


def _gate_attribute(found: list, node: ast.Attribute, line: int, imported) -> None:
    """A private or dunder attribute (a module's version aside), or a chain
    that reaches past torch's tensor API."""
    if _module_version(node, imported):
        pass
    elif node.attr.startswith("_") and node.attr not in HARMLESS_DUNDERS:
        found.append(_refused(line, f".{node.attr}", "private or dunder attribute"))
    chain = _chain(node)
    if chain and any(chain == t or chain.startswith(t + ".") for t in REFUSED_TORCH):
        found.append(_refused(line, chain, "reaches past the tensor API"))


def refusals(text: str) -> list[dict]:
    """[{"line", "construct", "why"}] for every construct the gate refuses,
    by line; [] when the source may run. The source must parse."""
    tree = ast.parse(text)
    found: list[dict] = []
    main_blocks = [n for n in tree.body if _is_main_guard(n)]
    skipped = {id(n) for block in main_blocks for n in ast.walk(block)}
    skipped -= {id(block) for block in main_blocks}
    skipped -= {id(block.test) for block in main_blocks}
    skipped |= {id(n) for block in main_blocks for n in ast.walk(block.test)}
    modules: dict[str, tuple[str, int]] = {}  # bound name -> module, line
    imported = _import_only_names(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            for alias in node.names:
                _gate_import(found, modules, alias.name, alias, line)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                found.append(_refused(line, "a relative import", "imports by position"))
                continue
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                name = full if full in ALLOWED_MODULES else node.module
                _gate_import(found, modules, name, alias, line, full)
        elif isinstance(node, ast.Attribute):
            _gate_attribute(found, node, line, imported)
        elif isinstance(node, ast.Name):
            if node.id.startswith("__") and node.id not in HARMLESS_DUNDERS:
                found.append(_refused(line, node.id, "dunder name"))
            if node.id in REFUSED_CALLS:
                found.append(_refused(line, f"{node.id}", REFUSED_CALLS[node.id]))
        elif isinstance(node, ast.ClassDef):
            _gate_class(found, node, line)
        elif isinstance(node, ast.ExceptHandler):
            caught = _chain(node.type) if node.type is not None else None
            if node.type is None or caught in (
                "BaseException",
                "builtins.BaseException",
            ):
                found.append(
                    _refused(
                        line,
                        "except " + (caught or ":"),
                        "swallows the evaluator's signals",
                    )
                )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for path in PATH_TEXT:
                if path + "/" in node.value or node.value == path:
                    found.append(_refused(line, repr(path), "names a system path"))
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = (
                node.targets
                if isinstance(node, ast.Assign | ast.Delete)
                else [node.target]
            )
            for target in targets:
                for part in ast.walk(target):
                    if isinstance(part, ast.Attribute):
                        root = _root(part)
                        if root in modules:
                            found.append(
                                _refused(
                                    line,
                                    f"assignment to {_chain(part) or part.attr}",
                                    "changes a module other code uses",
                                )
                            )
    for name, (module, line) in modules.items():
        if module in MAIN_ONLY_MODULES and _used_outside(tree, name, skipped):
            found.append(
                _refused(line, f"import {module}", "not a module a kernel needs")
            )
    unique = {(f["line"], f["construct"]): f for f in found}
    return sorted(unique.values(), key=lambda f: (f["line"], f["construct"]))


def refusal_message(item: dict) -> str:
    return (
        f"line {item['line']} uses {escape_for_message(item['construct'])}, "
        f"which a candidate may not use ({item['why']})"
    )


def escape_for_message(text: str) -> str:
    return review.escape(text)


def _gate_import(found, modules, name, alias, line, shown=None) -> None:
    bound = alias.asname or alias.name.split(".")[0]
    if name in ALLOWED_MODULES or name.split(".")[0] == "torch" and name == "torch":
        modules[bound] = (name, line)
        return
    if name in MAIN_ONLY_MODULES:
        modules[bound] = (name, line)
        return
    found.append(
        _refused(line, f"import {shown or name}", "not a module a kernel needs")
    )


def _import_only_names(tree) -> set[str]:
    """Names bound only by imports of allowed modules, or to None (as in
    ``except ImportError: triton = None``): whatever else the source does,
    such a name is one of those modules or None."""
    imported, other = set(), set()
    to_none = {
        id(target)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and node.value.value is None
        for target in node.targets
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if isinstance(node, ast.Import):
                    module = alias.name if alias.asname else alias.name.split(".")[0]
                    bound = alias.asname or alias.name.split(".")[0]
                else:
                    module = None if node.level else f"{node.module}.{alias.name}"
                    bound = alias.asname or alias.name
                (imported if module in ALLOWED_MODULES else other).add(bound)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            if id(node) not in to_none:
                other.add(node.id)
        elif isinstance(node, ast.arg):
            other.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            other.add(node.name)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
            other.add(node.name)
        elif isinstance(node, ast.MatchMapping):
            other.add(node.rest)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            other.update(node.names)
    return imported - other


def _module_version(node: ast.Attribute, imported: set[str]) -> bool:
    """``module.__version__`` where module is a name bound only to an allowed
    module: its version string, nothing more (what the name resolves to,
    not how the attribute is spelled, decides)."""
    return (
        node.attr == "__version__"
        and isinstance(node.value, ast.Name)
        and node.value.id in imported
        and isinstance(node.ctx, ast.Load)
    )


def _gate_class(found, node: ast.ClassDef, line: int) -> None:
    if node.name in BUILTIN_EXCEPTIONS:
        found.append(
            _refused(line, f"class {node.name}", "shadows a built-in exception")
        )
    bases = [_chain(b) for b in node.bases]
    if sum(b in BUILTIN_EXCEPTIONS for b in bases) > 1:
        found.append(
            _refused(line, f"class {node.name}", "is two built-in exceptions at once")
        )
    if node.keywords:
        found.append(_refused(line, f"class {node.name}(metaclass=...)", "a metaclass"))


def _is_main_guard(node) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def _used_outside(tree, name: str, skipped: set) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == name and id(n) not in skipped
        for n in ast.walk(tree)
    )


def _chain(node) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _root(node) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _refused(line: int, construct: str, why: str) -> dict:
    return {"line": line, "construct": construct, "why": why}
