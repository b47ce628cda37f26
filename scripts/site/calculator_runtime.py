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
import math
import re

KINDS = ("int", "float", "str", "bool")
INT_TEXT_RE = re.compile(r"[+-]?\d+")
# Whole numbers past 15 digits lose exactness as floats, and no size a
# calculator takes (elements, blocks, requests) is that large.
MAX_INT_DIGITS = 15
# A function that returns a bare number names its unit by the end of its
# name; the page shows the unit with the rounded number.
UNIT_SUFFIXES = (("_bytes", "bytes"), ("speedup", "×"), ("_seconds", "s"))


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
        # Digits only: "2.5" is not a count, and "1e30" would be a float
        # dressed as one (its arithmetic prints noise, not an answer).
        digits = text.replace(",", "").replace("_", "")
        if not INT_TEXT_RE.fullmatch(digits):
            raise ValueError(f"{name} must be a whole number, got {text!r}")
        if len(digits.lstrip("+-")) > MAX_INT_DIGITS:
            raise ValueError(
                f"{name} must be a whole number of at most {MAX_INT_DIGITS} "
                f"digits, got {text!r}"
            )
        return int(digits)
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


def fmt_number(value: float) -> str:
    """Four significant figures, thousands separated, never e-notation
    above one: 1.1111111111111112 -> 1.111, 100663296 -> 100,663,296."""
    if math.isinf(value) or math.isnan(value):
        return str(value)
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.4g}"


def fmt_result(func_name: str, result) -> str:
    """What the page shows: a sentence as returned; a bare number rounded,
    with the unit its function's name gives (bytes also in MB or GB)."""
    if isinstance(result, bool) or not isinstance(result, int | float):
        return str(result)
    if not math.isfinite(result):
        return str(result)  # "inf": no finite answer, and no unit to give it
    unit = next((u for end, u in UNIT_SUFFIXES if func_name.endswith(end)), "")
    text = fmt_number(result)
    if unit == "bytes" and abs(result) >= 1e6:
        scale, name = (1e9, "GB") if abs(result) >= 1e9 else (1e6, "MB")
        return f"{text} bytes ({result / scale:,.1f} {name})"
    if unit == "×":
        return f"{text}×"
    return f"{text} {unit}".rstrip()


def run(module: str, func_name: str, fields_json: str) -> list:
    """[ok, text]: the result as the page shows it, or the error message."""
    importlib.invalidate_caches()
    func = getattr(importlib.import_module(module), func_name)
    try:
        return [True, fmt_result(func_name, call(func, json.loads(fields_json)))]
    except ValueError as exc:
        return [False, str(exc)]
    except Exception as exc:  # shown, not raised: the page stays usable
        return [False, f"{type(exc).__name__}: {exc}"]
