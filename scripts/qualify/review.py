"""What a person should read before trusting a pass (used by
``scripts/qualify/evaluator.py``), and how untrusted text is shown.

A black-box run cannot see a candidate that inspects the evaluator and
behaves only while watched, or one that forges what its own process reports.
Both need constructs ordinary kernels never use: frame or ``gc`` inspection,
``ctypes``, processes and signals, threads, ``/proc``. ``suspicious(text)``
lists each one found in the source with its line, for the verdict's "review
before trusting" list. Finding none proves nothing; finding one is not a
rejection (a launcher may import ``os`` for an environment variable).
"""

from __future__ import annotations

import ast
import re

# module (or name) -> why a reviewer should look
MODULES = {
    "ctypes": "calls C directly: can read or write any memory of its process",
    "gc": "can find the evaluator's objects (its launch log) and change them",
    "inspect": "can walk the call stack to the evaluator's frames",
    "os": "files, processes and signals",
    "subprocess": "starts other programs",
    "signal": "signals other processes or changes how its own end",
    "threading": "work that goes on after the call returns",
    "multiprocessing": "processes that outlive the call",
    "concurrent": "work that goes on after the call returns",
    "socket": "network access",
    "pickle": "runs code while loading data",
    "importlib": "loads or reloads modules by name",
    "builtins": "replaces functions every module uses",
    "scripts": "reaches into the evaluator's own modules",
}
CALLS = {
    "_getframe": "walks the call stack to the evaluator's frames",
    "__import__": "imports a module by a computed name",
    "exec": "runs code built at run time",
    "eval": "runs code built at run time",
    "setattr": "patches another object",
}
TEXT = {
    re.compile(r"/proc\b"): "reads process information through /proc",
    re.compile(r"/dev/shm|/tmp/qualify"): "names the evaluator's work area",
    re.compile(r"f_back|f_locals|f_globals|gi_frame|tb_frame"): "frame inspection",
}


def construct_names() -> list[str]:
    """Every construct the review looks for, for the contract."""
    return [*MODULES, *CALLS, "/proc", "work-area paths", "frame attributes"]


def suspicious(text: str) -> list[dict]:
    """[{"line", "construct", "why"}] for each construct found, by line."""
    found: list[dict] = []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        tree = None
    for node in ast.walk(tree) if tree else ():
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            for alias in node.names:
                _module(found, alias.name, line)
        elif isinstance(node, ast.ImportFrom) and node.module:
            _module(found, node.module, line)
        elif isinstance(node, ast.Call):
            name = _called(node.func)
            if name in CALLS:
                found.append(_item(line, f"{name}()", CALLS[name]))
    for number, line in enumerate(source_lines(text), start=1):
        for pattern, why in TEXT.items():
            if match := pattern.search(line):
                found.append(_item(number, match.group(0), why))
    unique = {(f["line"], f["construct"]): f for f in found}
    return sorted(unique.values(), key=lambda f: (f["line"], f["construct"]))


def source_lines(text: str) -> list[str]:
    """The lines as Python's parser numbers them: split at \\n, \\r\\n and
    \\r only. (str.splitlines also splits at form feeds, vertical tabs and
    other separators, so a candidate could shift every later line number
    away from the one its listing and the parser give.)"""
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def _module(found: list[dict], name: str, line: int) -> None:
    top = name.split(".")[0]
    if top in MODULES:
        found.append(_item(line, f"import {escape(name)}", MODULES[top]))


def _called(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _item(line: int, construct: str, why: str) -> dict:
    return {"line": line, "construct": construct, "why": why}


# Control characters, line and paragraph separators, bidirectional
# overrides and isolates, and lone surrogates (which no encoder can print).
_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def escape(text: str) -> str:
    """Untrusted text made safe to print: control characters (terminal
    escapes, bidirectional overrides, carriage returns) shown as \\xNN or \\uNNNN."""

    def show(match: re.Match) -> str:
        code = ord(match.group(0))
        return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"

    return _CONTROL.sub(show, text)


def clip(text: str, limit: int = 160) -> str:
    """A child's string, one line, escaped, at most `limit` characters."""
    text = escape(" ".join(str(text).split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"
