"""What a calculator runs in the reader's browser, inside Pyodide.

The build copies this file into the site as ``calculator_runtime.py`` next to
the project files a page's calculators need; ``docs/assets/calculators.js``
imports it and calls :func:`run` with the form's text. It converts each field
by the parameter's annotation, calls the very function the page and its tests
use, and returns what the page shows: ``str()`` of the result, or the
function's own ``ValueError`` message. Standard library only: it must import
in Pyodide and in CPython alike (its tests run it in CPython).
"""

from __future__ import annotations

import importlib
import inspect
import json

KINDS = ("int", "float", "str", "bool")


def kind_of(annotation) -> str | None:
    """'int', 'float', 'str' or 'bool' for a parameter's annotation (a type
    or, under ``from __future__ import annotations``, its name)."""
    name = (
        annotation
        if isinstance(annotation, str)
        else getattr(annotation, "__name__", None)
    )
    return name if name in KINDS else None


def convert(kind: str, name: str, text: str):
    """The value a form field's text stands for; ValueError names the field."""
    text = text.strip()
    if kind == "str":
        return text
    if kind == "bool":
        if text.lower() in ("true", "1", "on", "yes"):
            return True
        if text.lower() in ("false", "0", "off", "no", ""):
            return False
        raise ValueError(f"{name} must be true or false, got {text!r}")
    if not text:
        raise ValueError(f"{name}: enter a number")
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            pass
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is not None and value.is_integer():
            return int(value)
        raise ValueError(f"{name} must be a whole number, got {text!r}")
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {text!r}") from None


def call(func, fields: dict[str, str]):
    """func called with each field converted by its parameter's annotation."""
    signature = inspect.signature(func)
    kwargs = {}
    for name, parameter in signature.parameters.items():
        if name not in fields:
            continue
        kind = kind_of(parameter.annotation) or "str"
        kwargs[name] = convert(kind, name, fields[name])
    return func(**kwargs)


def run(module: str, func_name: str, fields_json: str) -> list:
    """[ok, text]: the result's str(), or the error message the page shows."""
    importlib.invalidate_caches()
    func = getattr(importlib.import_module(module), func_name)
    try:
        return [True, str(call(func, json.loads(fields_json)))]
    except ValueError as exc:
        return [False, str(exc)]
    except Exception as exc:  # shown, not raised: the page stays usable
        return [False, f"{type(exc).__name__}: {exc}"]
