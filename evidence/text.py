"""Text from a data file, made safe to print: checked on load, inert on a page.

Two halves of one rule, "data is never markup":

* ``string_problem(field, value)`` is asked on load about every string of a
  benchmark file (``evidence.method.check_consistency``). Names a page prints
  (device, software, shape text, dtype, providers, labels, timer) must be
  plain: printable ASCII and a few typographic symbols, no longer than a
  limit. That refuses look-alike letters (a Cyrillic "Н" in "NVIDIA Н200"),
  bidi controls, zero-width characters, lone surrogates and control
  characters. Messages the runner writes (a failed row's reason, an error, a
  flag) may hold any printable character of any script, line breaks, tabs
  and terminal colour escapes, but never format (bidi, zero-width), other
  control or surrogate code points, and are longer.
* ``inert(value)`` turns any string from a file into text a Markdown page
  shows as itself: HTML, Markdown, ``attr_list`` (``{``, ``}``, ``=``,
  quotes), emoji shortcodes (a colon that could open one) and the build's
  own placeholder syntax (``<!--``, ``-->``, a ``--8<--`` include line) all
  become character references, and every line break becomes a space, so
  nothing a file says can start a line of its own.
* ``plain_word(value)`` is for the few places a page shows a file's string
  inside a code span, where references would show as themselves: a path or
  a shape passes unchanged, anything else is refused with one line.
"""

from __future__ import annotations

import re
import unicodedata

#: Non-ASCII characters a plain name may hold (the runner writes "×" in shape
#: text and "µ" in units; none of these is a letter).
PLAIN_SYMBOLS = frozenset("×µ–—³²·≤≥°")
#: The longest plain name, by field (the key of the string in the file);
#: other plain strings get DEFAULT_NAME_LIMIT.
NAME_LIMITS = {
    "name": 100,
    "dtype": 32,
    "provider": 40,
    "profile": 16,
    "timer": 60,
    "shape_text": 120,
    "labels": 60,
    "python": 100,
    "torch": 100,
    "triton": 100,
    "numpy": 100,
    "torch_cuda": 100,
    "driver": 100,
    "commit": 64,
    # A library's device kernel names are long C++ template instances.
    "device_kernels": 4000,
}
DEFAULT_NAME_LIMIT = 400
#: Keys whose strings are messages (free text from exceptions and checks).
MESSAGE_KEYS = frozenset(
    {"error", "reason", "flags", "notes", "argv", "changed_files", "what"}
)
MESSAGE_LIMIT = 2000
#: Controls a message may hold: line breaks and tabs (shown as spaces) and
#: the escape that starts a terminal colour code in a compiler's error.
MESSAGE_CONTROLS = frozenset("\n\r\t\x1b")

# Markdown, attr_list, HTML and the build's placeholders: every character a
# page's Markdown could read as syntax, as a numeric character reference.
_REFERENCES = {c: f"&#{ord(c)};" for c in "\\`*_[]!~|{}=#^"}
_REFERENCES.update({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})
_REFERENCES["'"] = "&#x27;"
_LINE_BREAKS = "\r\n\t\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_REFERENCES.update({c: " " for c in _LINE_BREAKS})
_TABLE = str.maketrans(_REFERENCES)
# A colon that could open an emoji shortcode (":name:"); "a: b" stays as is.
_SHORTCODE_COLON = re.compile(r":(?=[\w+-]+:)")


def inert(value: object) -> str:
    """``value`` as text a page shows literally, never as markup.

    One pass over the characters, so a reference this makes is never escaped
    again; the result holds no ``<``, no line break and no character
    Markdown, ``attr_list`` or the build's placeholders read as syntax."""
    return _SHORTCODE_COLON.sub("&#58;", str(value).translate(_TABLE))


_PLAIN_WORD = re.compile(r"[A-Za-z0-9_./×-]+")


def plain_word(value: object) -> str:
    """``value`` unchanged if it is one plain word (a path, a shape such as
    "4096×4096"), for the places a page shows it as code, where a character
    reference would show as itself; otherwise a one-line ``ValueError``."""
    text = str(value)
    if not _PLAIN_WORD.fullmatch(text):
        raise ValueError(
            f"{text[:40]!r} may not be shown as code: only letters, digits "
            "and _ . / × - are"
        )
    return text


def _refused_code_point(char: str) -> str | None:
    category = unicodedata.category(char)
    if category == "Cs":
        return "a lone surrogate"
    if category == "Cf":
        return f"an invisible format character U+{ord(char):04X} (bidi or zero-width)"
    if category in ("Cc", "Co", "Cn", "Zl", "Zp"):
        return f"a control or unassigned character U+{ord(char):04X}"
    return None


def string_problem(key: str, value: str) -> str | None:
    """Why a string stored under ``key`` may not be printed, or None."""
    if key in MESSAGE_KEYS:
        if len(value) > MESSAGE_LIMIT:
            return f"longer than {MESSAGE_LIMIT} characters ({len(value)})"
        for char in value:
            if char in MESSAGE_CONTROLS:
                continue
            why = _refused_code_point(char)
            if why:
                return f"holds {why}"
        return None
    limit = NAME_LIMITS.get(key, DEFAULT_NAME_LIMIT)
    if len(value) > limit:
        return f"longer than {limit} characters ({len(value)})"
    for char in value:
        if " " <= char <= "~" or char in PLAIN_SYMBOLS:
            continue
        why = _refused_code_point(char)
        if why:
            return f"holds {why}"
        name = unicodedata.name(char, "unnamed")
        return (
            f"holds U+{ord(char):04X} ({name.lower()}): a name may use printable "
            "ASCII only (a look-alike letter could pass for another device)"
        )
    return None


def first_string_problem(data: object, path: str = "") -> tuple[str, str] | None:
    """(field, why) of the first string or key in ``data`` that may not be
    printed, or None. A string's key decides its rules (items of a list take
    the list's key)."""
    return _walk(data, path, "")


def _walk(data: object, path: str, key: str) -> tuple[str, str] | None:
    if isinstance(data, str):
        why = string_problem(key, data)
        return (path.lstrip(".") or "(top level)", why) if why else None
    if isinstance(data, dict):
        for name, value in data.items():
            field = f"{path}.{name}"
            why = string_problem("", name) if isinstance(name, str) else None
            if why:
                shown = path.lstrip(".") or "(top level)"
                return shown, f"a key {why}"
            found = _walk(value, field, name)
            if found:
                return found
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found = _walk(value, f"{path}[{i}]", key)
            if found:
                return found
    return None
