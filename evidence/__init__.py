"""The result model: every data file the tools write and the site reads.

Below everything else: the benchmark runner, the artifact builder, the
evaluator and the site all import this package, and it imports none of them
(nor torch, nor Triton). Each kind of file has a JSON Schema in ``schemas/``;
files are validated with ``jsonschema`` when written and when read, so a
malformed file fails with one line naming the file and the field.

Result files may come from outside (a GPU machine, a reader): reading refuses
what is not a regular file, what is too large, what nests too deeply, and
non-finite numbers, each with a one-line ``ResultFileError``.

Modules, one job each:

- ``artifacts``: the one reader of compiled artifacts
  (``results/artifacts/``).
- ``contributed``: results other tools wrote (nccl-tests, vLLM, SGLang),
  imported under their own evidence source.
- ``benchmarks``: benchmark result files: load, pick the newest, tell
  whether stale.
- ``method``: the benchmark method's numbers and rules, shared by runner and
  pages.
- ``provenance``: where a result came from: the commit, the software, the
  device.
- ``published``: published figures others measured, each with its source.
- ``tables``: Markdown tables, built one way everywhere.
- ``text``: text from a data file made safe to print: checked on load, inert
  on a page.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
RESULTS_DIR = ROOT / "results"

#: Kinds of data file, each with ``schemas/<kind>.schema.json``.
KINDS = ("bench", "artifact", "verdict", "catalog", "serving", "sanitizer")
KINDS += ("collectives",)  # python -m scripts.collectives
KINDS += ("site_speed",)  # python -m scripts.bench site
# python -m scripts.bench import: another tool's result, mapped (contributed.py)
KINDS += ("contributed_collectives", "contributed_serving")
KINDS += ("plan",)  # python -m scripts.bench plan: a job manifest
#: The largest result file read (a real one is well under 1 MiB).
MAX_BYTES = 16 * 2**20
#: A smaller limit for kinds every page reads again (a GPU run's bench file
#: is well under 1 MiB; a larger one would only slow every build down).
MAX_BYTES_BY_KIND = {"bench": 4 * 2**20}
#: The most values (counted by separators, before parsing) a bench file may
#: hold. An estimate, since no GPU file exists yet: a full run of every kernel
#: is about 170 rows of about 100 values. Validating each value costs time in
#: every build, so a file padded with numbers must not get that far.
MAX_VALUES_BY_KIND = {"bench": 150_000}
#: Deepest nesting accepted before parsing (real files nest under 10 deep).
MAX_DEPTH = 32


class ResultFileError(ValueError):
    """A data file that cannot be used; the message names file and field."""


@functools.cache
def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema for one kind of file."""
    if kind not in KINDS:
        raise KeyError(f"no schema for {kind!r}; known: {', '.join(KINDS)}")
    return json.loads((SCHEMA_DIR / f"{kind}.schema.json").read_text("utf-8"))


def enum(kind: str, definition: str) -> tuple[str, ...]:
    """The allowed values of one ``$defs`` enum (statuses are defined once,
    in the schema, and read from there)."""
    return tuple(schema(kind)["$defs"][definition]["enum"])


@functools.cache
def _validator(kind: str):
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema(kind))


def _field_path(error) -> str:
    text = ""
    for part in error.absolute_path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text.lstrip(".") or "(top level)"


def validate(kind: str, data: Any, shown: str) -> None:
    """Raise ResultFileError naming ``shown`` and the first bad field."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator(kind).iter_errors(data))
    if error is not None:
        message = error.message
        if len(message) > 200:
            message = message[:197] + "..."
        raise ResultFileError(f"{shown}: field '{_field_path(error)}': {message}")


def slug(text: str, limit: int = 40) -> str:
    """A device or profile name as a file name part: lowercase letters,
    digits and hyphens only, whatever the text says."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:limit] or "device"


def display_path(path: Path, root: Path = ROOT) -> str:
    """A path as messages show it: relative to the checkout when inside it."""
    try:
        # abspath, not resolve: a symlink is named as itself, not its target
        absolute = Path(os.path.abspath(path))
        return absolute.relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        return str(path)


def sha256_bytes(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def sha256_file(path: Path) -> str:
    return sha256_bytes(Path(path).read_bytes())


class _NonFinite:
    """Stands in for NaN, Infinity or an overflowing number while parsing,
    so the error can name the field that held it."""

    def __init__(self, text: str):
        self.text = text


def _parse_float(text: str) -> float | _NonFinite:
    value = float(text)
    return value if math.isfinite(value) else _NonFinite(text)


def _find_non_finite(data: Any, path: str = "") -> tuple[str, str] | None:
    """(field, text) of the first stand-in in parsed data, or None."""
    if isinstance(data, _NonFinite):
        return path.lstrip(".") or "(top level)", data.text
    if isinstance(data, (dict, list)):
        items = data.items() if isinstance(data, dict) else enumerate(data)
        for key, value in items:
            part = f"[{key}]" if isinstance(key, int) else f".{key}"
            found = _find_non_finite(value, path + part)
            if found is not None:
                return found
    return None


def _too_deep(raw: bytes) -> bool:
    """True when brackets nest deeper than MAX_DEPTH (checked before parsing:
    json.loads recurses, and a deep enough file exhausts the stack)."""
    depth, in_string, escaped = 0, False, False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def read_untrusted(path: Path, shown: str, limit: int = MAX_BYTES) -> bytes:
    """The bytes of a file from outside, or ResultFileError naming it: a
    regular file (not a link, a folder or a device) of at most ``limit``."""
    path = Path(path)
    if path.is_symlink() or not path.is_file():
        raise ResultFileError(f"{shown}: not a regular file")
    with open(path, "rb") as handle:
        raw = handle.read(limit + 1)  # never more, whatever stat said
    if len(raw) > limit:
        raise ResultFileError(f"{shown}: larger than {limit >> 10} KiB")
    return raw


def parse_untrusted(raw: bytes, shown: str, non_finite_keys=frozenset()) -> Any:
    """Strict JSON from outside, or ResultFileError: nested at most
    MAX_DEPTH, no NaN or Infinity except as the value of a key in
    ``non_finite_keys`` (another tool's "no limit"), where it stays a float."""
    if _too_deep(raw):
        raise ResultFileError(f"{shown}: nested more than {MAX_DEPTH} levels deep")
    try:
        data = json.loads(raw, parse_constant=_NonFinite, parse_float=_parse_float)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ResultFileError(f"{shown}: not valid JSON: {exc}") from None
    if isinstance(data, dict):
        for key in non_finite_keys:
            if isinstance(data.get(key), _NonFinite):
                data[key] = float(data[key].text)
    found = _find_non_finite(data)
    if found is not None:
        field, text = found
        raise ResultFileError(
            f"{shown}: field '{field}': non-finite number {text[:40]} "
            "(JSON has no NaN or Infinity)"
        )
    return data


@dataclass(frozen=True)
class Loaded:
    """One validated data file."""

    path: Path
    name: str
    raw: bytes
    sha256: str
    data: dict[str, Any]


# (kind, path, inode, size, mtime) -> the bytes that validated: one build
# reads the same files for many pages, and validation is the slow part. Each
# read still parses its own copy, so no caller sees another's changes.
_validated: dict[tuple, bytes] = {}


def read(kind: str, path: Path, root: Path = ROOT) -> Loaded:
    """Read and validate one file, or raise ResultFileError naming it."""
    path = Path(path)
    shown = display_path(path, root)
    if path.is_symlink() or not path.is_file():
        raise ResultFileError(f"{shown}: not a regular file")
    stat = path.stat()
    key = (kind, str(path.absolute()), stat.st_ino, stat.st_size, stat.st_mtime_ns)
    if key in _validated:
        raw = _validated[key]
        data = json.loads(raw)
        return Loaded(path, path.name, raw, sha256_bytes(raw), data)
    if stat.st_size > MAX_BYTES:
        raise ResultFileError(f"{shown}: larger than {MAX_BYTES >> 20} MiB")
    with open(path, "rb") as handle:
        raw = handle.read(MAX_BYTES + 1)  # the file may have grown since stat
    if len(raw) > MAX_BYTES:
        raise ResultFileError(f"{shown}: larger than {MAX_BYTES >> 20} MiB")
    limit = MAX_BYTES_BY_KIND.get(kind, MAX_BYTES)
    if len(raw) > limit:
        raise ResultFileError(
            f"{shown}: larger than {limit >> 20} MiB for a {kind} file"
        )
    values = MAX_VALUES_BY_KIND.get(kind)
    if values is not None and raw.count(b",") > values:
        raise ResultFileError(
            f"{shown}: more than {values} values; a {kind} file is far smaller"
        )
    if _too_deep(raw):
        raise ResultFileError(f"{shown}: nested more than {MAX_DEPTH} levels deep")
    try:
        data = json.loads(raw, parse_constant=_NonFinite, parse_float=_parse_float)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ResultFileError(f"{shown}: not valid JSON: {exc}") from None
    found = _find_non_finite(data)
    if found is not None:
        field, text = found
        raise ResultFileError(
            f"{shown}: field '{field}': non-finite number {text[:40]} "
            "(JSON has no NaN or Infinity)"
        )
    validate(kind, data, shown)
    _validated[key] = raw
    return Loaded(path, path.name, raw, sha256_bytes(raw), data)


def dumps(data: Any) -> str:
    """The text every tool writes: strict JSON, one space of indent."""
    return json.dumps(data, indent=1, allow_nan=False, ensure_ascii=False) + "\n"


def write(kind: str, path: Path, data: Any) -> Path:
    """Validate, then replace ``path`` atomically (a reader never sees half a
    file). For files that must never overwrite another run, see
    ``scripts.bench.writer``."""
    path = Path(path)
    validate(kind, data, display_path(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(dumps(data))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def kernel_source_paths(kernel: str, root: Path = ROOT) -> list[Path]:
    """The files whose hash identifies a kernel: ``kernels/<kernel>.py``, or
    every .py file of a ``kernels/<kernel>/`` package."""
    if not kernel.isidentifier():
        return []
    module = root / "kernels" / f"{kernel}.py"
    if module.is_file():
        return [module]
    package = root / "kernels" / kernel
    if package.is_dir():
        return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)
    return []


def kernel_artifact_source(kernel: str, root: Path = ROOT) -> Path | None:
    """The one file whose hash identifies a kernel's compiled artifact: the
    module ``kernels/<kernel>.py``, or ``versions.py`` of a package (the
    kernels; its ``describe.py`` holds the builds). None when neither."""
    paths = kernel_source_paths(kernel, root)
    if len(paths) > 1:
        paths = [path for path in paths if path.name == "versions.py"]
    return paths[0] if len(paths) == 1 else None


def current_sources(kernel: str, root: Path = ROOT) -> dict[str, str]:
    """Path -> sha256 of a kernel's source files as they are now."""
    return {
        p.relative_to(root).as_posix(): sha256_file(p)
        for p in kernel_source_paths(kernel, root)
    }


def stale_changes(recorded: dict[str, str], now: dict[str, str]) -> list[dict]:
    """What changed between recorded and current source hashes: one entry
    per file, ``{"path", "was", "now"}`` with None for absent."""
    return [
        {"path": path, "was": recorded.get(path), "now": now.get(path)}
        for path in sorted(set(recorded) | set(now))
        if recorded.get(path) != now.get(path)
    ]
