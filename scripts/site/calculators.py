"""Calculators and predictions: the site's tested Python, run in the page.

Two placeholders, each alone on its line of a page:

``<!-- calculator: snippets/<folder>/<file>.py:func -->``
    becomes a form that calls ``func`` in the reader's browser (Pyodide):
    one ``<input name="<parameter>">`` per parameter (its type from the
    annotation, ``int``/``float``/``str``/``bool``, its value the default),
    a Run button and an element with ``data-output`` that shows ``str()`` of
    the result or the function's own ``ValueError`` message. The element
    carries ``data-calculator="<path>:<func>"``. Optional literal keyword
    arguments, ``func(kernel_fraction=0.2)``, give the fields their first
    values where the function has no default.

``<!-- predict: <path>:func(literal args) "question" [measured=<path>:func()] -->``
    asks the reader for an estimate, then reveals ``func(args)`` (computed
    here, at build time), the committed measurement when ``measured=`` names
    a function returning one (or None while none exists), and the reader's
    error.

A calculator's file and every project module it imports must use the
standard library only (checked on the source with ``ast``, imports inside
functions included): the build fails naming the page and the import. The
build copies those files, ``scripts/site/calculator_runtime.py`` and the
Pyodide runtime (``node_modules/pyodide``, installed by ``npm ci`` from
``package-lock.json``) into the site; ``docs/assets/calculators.js`` loads
Pyodide only when a reader first presses Run.
"""

from __future__ import annotations

import ast
import html
import inspect
import json
import posixpath
import re
import shutil
import sys
import zipfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from properdocs.exceptions import PluginError

# The page prints a prediction's answer as the browser prints a result.
from scripts.site.calculator_runtime import fmt_number, kind_of
from scripts.site.fences import substitute_in_prose

ROOT = Path(__file__).resolve().parents[2]
PROJECT_PACKAGES = ("snippets", "kernels", "evidence", "scripts")
PYODIDE_SOURCE = ROOT / "node_modules" / "pyodide"
PACKAGE_LOCK = ROOT / "package-lock.json"
# Only what loadPyodide() fetches: the module, the runtime, the standard
# library and the lock file it reads at start-up. No packages are vendored.
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
SITE_PYODIDE = "assets/pyodide"
SITE_PYTHON = "assets/calculators/py"
RUNTIME = ROOT / "scripts" / "site" / "calculator_runtime.py"
RUNTIME_NAME = "calculator_runtime.py"

CALCULATOR_RE = re.compile(
    r"<!--\s*calculator:\s*(?P<path>[\w./-]+\.py):(?P<func>\w+)"
    r"(?:\((?P<args>[^\n]*?)\))?\s*-->"
)
PREDICT_RE = re.compile(
    r"<!--\s*predict:\s*(?P<path>[\w./-]+\.py):(?P<func>\w+)\((?P<args>[^\n]*?)\)"
    r'\s+"(?P<question>[^"\n]+)"'
    r"(?:\s+measured=(?P<mpath>[\w./-]+\.py):(?P<mfunc>\w+)\((?P<margs>[^\n]*?)\))?"
    r"\s*-->"
)

# Files the built site needs, gathered while pages render: repository paths
# of the Python files calculators load, and the pages that hold calculators.
_state: dict[str, set[str]] = {"files": set(), "pages": set()}


class CalculatorError(ValueError):
    """A placeholder the build cannot turn into a calculator."""


@dataclass(frozen=True)
class Field:
    name: str
    kind: str  # int, float, str or bool
    value: object  # the field's first value; None leaves it empty


# --------------------------------------------------------------------------
# Standard library only: the import closure of a file, read with ast
# --------------------------------------------------------------------------


@cache
def pyodide_stdlib() -> frozenset[str] | None:
    """Top-level modules in Pyodide's python_stdlib.zip (None when Pyodide
    is not installed: then the interpreter's list alone decides)."""
    archive = PYODIDE_SOURCE / "python_stdlib.zip"
    if not archive.is_file():
        return None
    with zipfile.ZipFile(archive) as zf:
        names = {n.split("/")[0].removesuffix(".py") for n in zf.namelist()}
    return frozenset(names)


def in_pyodide_stdlib(top: str) -> bool:
    """Whether Pyodide can import the standard-library module `top`. Pure
    Python modules must be in its zip; compiled ones are built into it."""
    if top not in sys.stdlib_module_names:
        return False
    available = pyodide_stdlib()
    if available is None or top in available or top in sys.builtin_module_names:
        return True
    import importlib.util

    spec = importlib.util.find_spec(top)
    origin = (spec.origin or "") if spec else ""
    return not (origin.endswith(".py") or (spec and spec.submodule_search_locations))


def project_file(dotted: str) -> Path | None:
    """The file of a project module (module.py or package/__init__.py)."""
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        getattr(test, "id", None) == "TYPE_CHECKING"
        or getattr(test, "attr", None) == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module, rel: str, module_level: bool = False):
    """(line, dotted name, is 'from X import name' candidate) for every
    import in the file, inside functions too (unless `module_level`),
    outside `if TYPE_CHECKING`."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if module_level and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if _type_checking(node):
            todo.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, False
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                package = rel.removesuffix(".py").split("/")[:-1]
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, *([module] if module else [])])
            yield node.lineno, module, False
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}", True
        todo.extend(ast.iter_child_nodes(node))


def import_closure(path: str) -> list[str]:
    """Repository paths of `path`, its packages' __init__ files and every
    project module they import, all checked to import nothing but the
    standard library; CalculatorError names the first file and line that
    does not. A package's __init__ reached only as the parent of a module
    runs its module-level code alone (a function in it that imports
    jsonschema is never called), so only its module-level imports count."""
    found: dict[str, bool] = {}  # path -> reached only as a parent package
    todo = [(path, False)]
    while todo:
        rel, parent_only = todo.pop()
        if rel in found and (found[rel] <= parent_only):
            continue
        file = ROOT / rel
        if not file.is_file():
            raise CalculatorError(f"no such file {rel!r}")
        found[rel] = parent_only
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            init = "/".join([*parts[:depth], "__init__.py"])
            if (ROOT / init).is_file() and init != rel:
                todo.append((init, True))
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=rel)
        for line, name, candidate in _imports(tree, rel, module_level=parent_only):
            top = name.split(".")[0]
            if top in PROJECT_PACKAGES:
                target = project_file(name)
                if target is not None:
                    todo.append((target.relative_to(ROOT).as_posix(), False))
                elif not candidate:
                    raise CalculatorError(f"{rel}:{line} imports {name}: no such file")
            elif not candidate and not in_pyodide_stdlib(top):
                raise CalculatorError(
                    f"{rel}:{line} imports {name}, which is not in Python's "
                    f"standard library as Pyodide ships it; a calculator's code "
                    f"(and every project module it imports) must use the "
                    f"standard library only"
                )
    return sorted(found)


# --------------------------------------------------------------------------
# Functions and their fields
# --------------------------------------------------------------------------


def load_function(path: str, func_name: str):
    """The function `func_name` of the project file `path`."""
    file = (ROOT / path).resolve()
    if not file.is_file():
        raise CalculatorError(f"no such file {path!r}")
    dotted = ".".join(file.relative_to(ROOT).with_suffix("").parts)
    __import__(dotted)  # as the insert hook does: shows in -X importtime
    func = getattr(sys.modules[dotted], func_name, None)
    if func is None or not callable(func):
        raise CalculatorError(f"{path} has no function {func_name!r}")
    return func


def parse_kwargs(args_text: str | None) -> dict:
    """Literal keyword arguments, `a=1, b=0.5`, as a dict."""
    if not args_text or not args_text.strip():
        return {}
    call = ast.parse(f"f({args_text})", mode="eval").body
    if call.args:
        raise CalculatorError("a calculator's first values must be keyword arguments")
    return {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}


def fields_of(func, first_values: dict | None = None) -> list[Field]:
    """One field per parameter, typed by its annotation."""
    first_values = dict(first_values or {})
    fields = []
    for name, parameter in inspect.signature(func).parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise CalculatorError(f"parameter {name}: *args and **kwargs have no field")
        kind = kind_of(parameter.annotation)
        if kind is None:
            raise CalculatorError(
                f"parameter {name} must be annotated int, float, str or bool "
                f"(found {parameter.annotation!r})"
            )
        value = first_values.pop(name, None)
        if value is None and parameter.default is not parameter.empty:
            value = parameter.default
        if value is None and kind != "bool":
            # A calculator that answers "enter a number" on its first Run
            # teaches nothing: every field starts with a working value.
            raise CalculatorError(
                f"parameter {name} has no default: give the field a first value, "
                f"e.g. {func.__name__}({name}=...) in the placeholder"
            )
        fields.append(Field(name, kind, value))
    if first_values:
        raise CalculatorError(f"no parameter named {', '.join(sorted(first_values))}")
    return fields


# --------------------------------------------------------------------------
# Markup
# --------------------------------------------------------------------------


def _attr(value) -> str:
    return html.escape(str(value), quote=True)


LABELS_PATH = Path(__file__).with_name("calculator_labels.yml")


@cache
def field_labels() -> dict[str, str]:
    """{parameter name: its label in words, with its unit}."""
    import yaml

    return yaml.safe_load(LABELS_PATH.read_text(encoding="utf-8"))


def field_label(name: str) -> str:
    """The words a field shows; CalculatorError for a name without any."""
    label = field_labels().get(name)
    if not label:
        raise CalculatorError(
            f"parameter {name} has no label: add one, in words with its unit, "
            f"to {LABELS_PATH.relative_to(LABELS_PATH.parents[2]).as_posix()}"
        )
    return label


def field_html(field: Field) -> str:
    label = f'<span class="calculator-name">{_attr(field_label(field.name))}</span>'
    kind_attr = f' data-kind="{field.kind}"'
    if field.kind == "bool":
        checked = " checked" if field.value else ""
        control = (
            f'<input name="{_attr(field.name)}" type="checkbox"{checked}{kind_attr}>'
        )
    else:
        value = "" if field.value is None else f' value="{_attr(field.value)}"'
        kind = {
            "int": 'type="number" step="1" inputmode="numeric"',
            "float": 'type="number" step="any" inputmode="decimal"',
            "str": 'type="text"',
        }[field.kind]
        control = f'<input name="{_attr(field.name)}" {kind}{value}{kind_attr}>'
    return f"<label>{label}{control}</label>"


def code_spans(text: str) -> str:
    """Escaped text with its `backticked` words as <code>, as in the docs."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _attr(text))


def summary_line(func) -> str:
    doc = inspect.getdoc(func) or ""
    return doc.split("\n\n")[0].replace("\n", " ").strip()


def calculator_html(
    path: str, func_name: str, fields: list[Field], files: list[str], page_url: str
) -> str:
    """The calculator as one line of HTML (a raw block, so it may sit inside
    an admonition too)."""
    module = path.removesuffix(".py").replace("/", ".")
    source = posixpath.relpath(f"src/{path}", page_url.rstrip("/") or ".")
    summary = summary_line(load_function(path, func_name))
    caption = (
        f'<p class="calculator-caption"><code>{_attr(func_name)}</code> from '
        f'<a href="{_attr(source)}"><code>{_attr(path)}</code></a>'
        + (f" — {code_spans(summary)}" if summary else "")
        + "</p>"
    )
    return (
        f'<div class="calculator" data-calculator="{_attr(path)}:{_attr(func_name)}"'
        f' data-module="{_attr(module)}" data-function="{_attr(func_name)}"'
        f' data-files="{_attr(" ".join(files))}">'
        + caption
        + '<div class="calculator-fields">'
        + "".join(field_html(field) for field in fields)
        + "</div>"
        + '<p class="calculator-actions"><button type="button" '
        'class="md-button md-button--primary calculator-run">Run</button>'
        '<span class="calculator-status" aria-live="polite"></span></p>'
        + '<p class="calculator-result">Result: <output data-output '
        'aria-live="polite"></output></p></div>'
    )


def predict_value(path: str, func_name: str, args_text: str) -> float:
    import_closure(path)
    func = load_function(path, func_name)
    call = ast.parse(f"f({args_text})", mode="eval").body
    args = [ast.literal_eval(arg) for arg in call.args]
    kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    value = func(*args, **kwargs)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CalculatorError(f"{func_name} must return a number, got {value!r}")
    return float(value)


def predict_html(question: str, value: float, measured: float | None) -> str:
    data = f' data-answer="{value!r}" data-answer-text="{_attr(fmt_number(value))}"'
    if measured is not None:
        data += (
            f' data-measured="{measured!r}"'
            f' data-measured-text="{_attr(fmt_number(measured))}"'
        )
    return (
        f'<div class="predict" data-predict{data}>'
        f'<p class="predict-question"><strong>Predict.</strong> {_attr(question)}</p>'
        '<p class="predict-actions"><label>Your estimate '
        '<input name="estimate" type="number" step="any" inputmode="decimal">'
        '</label><button type="button" class="md-button predict-check">Check'
        '</button></p><p class="predict-result" data-output aria-live="polite"'
        " hidden></p></div>"
    )


# --------------------------------------------------------------------------
# Build events (called from scripts/site/hooks.py)
# --------------------------------------------------------------------------


def expand(markdown: str, src: str, page_url: str) -> str:
    """Replace the page's calculator and predict placeholders with markup;
    PluginError names the page and the placeholder."""

    def calculator(match: re.Match) -> str:
        path, func_name = match["path"], match["func"]
        try:
            files = import_closure(path)
            func = load_function(path, func_name)
            fields = fields_of(func, parse_kwargs(match["args"]))
            markup = calculator_html(path, func_name, fields, files, page_url)
        except Exception as exc:
            raise PluginError(
                f"docs/{src}: calculator {path}:{func_name}: {exc}"
            ) from exc
        _state["files"].update(files)
        _state["pages"].add(src)
        return markup

    def predict(match: re.Match) -> str:
        where = f"{match['path']}:{match['func']}({match['args']})"
        try:
            value = predict_value(match["path"], match["func"], match["args"])
            measured = None
            if match["mpath"]:
                result = load_function(match["mpath"], match["mfunc"])(
                    *parse_literal_args(match["margs"])
                )
                measured = None if result is None else float(result)
        except Exception as exc:
            raise PluginError(
                f"docs/{src}: predict {where}: {type(exc).__name__}: {exc}"
            ) from exc
        return predict_html(match["question"], value, measured)

    markdown = substitute_in_prose(CALCULATOR_RE, calculator, markdown)
    markdown = substitute_in_prose(PREDICT_RE, predict, markdown)
    if src in _state["pages"]:
        check_pyodide(src)
    return markdown


def parse_literal_args(args_text: str | None) -> list:
    if not args_text or not args_text.strip():
        return []
    call = ast.parse(f"f({args_text})", mode="eval").body
    return [ast.literal_eval(arg) for arg in call.args]


def locked_pyodide_version() -> str | None:
    try:
        lock = json.loads(PACKAGE_LOCK.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return lock.get("packages", {}).get("node_modules/pyodide", {}).get("version")


def check_pyodide(src: str) -> None:
    """Fail the build when a page needs Pyodide and the installed copy is
    missing or not the version package-lock.json pins."""
    try:
        installed = json.loads((PYODIDE_SOURCE / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        installed = None
    locked = locked_pyodide_version()
    missing = [f for f in PYODIDE_FILES if not (PYODIDE_SOURCE / f).is_file()]
    if installed is None or missing or installed != locked:
        found = "none" if installed is None else installed
        raise PluginError(
            f"docs/{src}: its calculators need Pyodide {locked} from "
            f"package-lock.json in node_modules/pyodide (found {found}"
            + (f", missing {', '.join(missing)}" if installed and missing else "")
            + "): run `make install` (npm ci)"
        )


def site_files() -> dict[str, Path]:
    """{site-relative path: source file} for everything calculators need."""
    if not _state["pages"]:
        return {}
    files = {f"{SITE_PYODIDE}/{name}": PYODIDE_SOURCE / name for name in PYODIDE_FILES}
    files[f"{SITE_PYTHON}/{RUNTIME_NAME}"] = RUNTIME
    for rel in sorted(_state["files"]):
        files[f"{SITE_PYTHON}/{rel}"] = ROOT / rel
    return files


def write_site(site_dir: Path) -> None:
    """Copy the runtime and the calculators' files into the built site, then
    forget this build's pages (``serve`` rebuilds in the same process)."""
    for rel, source in site_files().items():
        target = site_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    _state["files"].clear()
    _state["pages"].clear()
