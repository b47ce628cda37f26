"""What the build computes, kept on disk between builds, keyed by its sources.

An inserted value, a ``facts()`` mapping, a diagram's SVG, a run box's output
and the benchmark plots are each stored under a key made of:

- the hash of the module that computes it and of every project module that
  module imports (``import`` statements found with ``ast``, inside functions
  too, followed transitively);
- the hash of the data build-time code reads without importing it: every
  file under ``results/`` and ``kernels/`` (the artifact reader hashes kernel
  sources; ``discover()`` globs the kernel modules), every file under the
  project's packages that is not Python (records, YAML, schemas), and
  ``docs/roadmap.yml``;
- the module that turns the value into the page (``scripts/site/hooks.py``,
  ``diagrams.py``, ``run_boxes.py``), the Python version, and the call.

A prose edit changes none of these, so a rebuild reuses every value; an edit
to a snippet changes the keys of the values that module (or any module that
imports it) computes, so they are computed again, and an old value can never
be shown. Nothing is ever invalidated by hand; old entries are just no
longer looked up (delete ``.cache/site-build/`` at any time).

``SITE_BUILD_CACHE=off`` turns the cache off; ``SITE_BUILD_CACHE=<folder>``
puts it elsewhere.
"""

from __future__ import annotations

import ast
import hashlib
import io
import os
import pickle
import re
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PROJECT_PACKAGES = ("snippets", "kernels", "evidence", "scripts")
#: Read by build-time code as data, whatever their suffix.
DATA_DIRS = ("results", "kernels")
DATA_FILES = ("docs/roadmap.yml",)
#: Bump when the stored format or the meaning of a key changes.
VERSION = "1"


#: What load() returns for a key it does not hold (None is a value).
MISSING = object()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class BuildCache:
    """One build's view of the cache: file hashes are read once per build
    (a serve rebuild makes a new instance, so an edit is always seen)."""

    def __init__(
        self,
        root: Path = ROOT,
        folder: Path | None = None,
        packages: Iterable[str] = PROJECT_PACKAGES,
        enabled: bool = True,
    ):
        self.root = Path(root)
        self.folder = Path(folder) if folder else self.root / ".cache" / "site-build"
        self.packages = tuple(packages)
        self.enabled = enabled
        self._file_hashes: dict[Path, str] = {}
        self._imports: dict[Path, list[Path]] = {}
        self._closures: dict[Path, list[Path]] = {}
        self._data: str | None = None
        self._digests: dict[tuple[str, ...], str] = {}
        self.hits = self.misses = 0

    @classmethod
    def from_environment(cls) -> BuildCache:
        setting = os.environ.get("SITE_BUILD_CACHE", "")
        if setting.lower() in ("off", "0", "no"):
            return cls(enabled=False)
        return cls(folder=Path(setting) if setting else None)

    # ---------------------------------------------------------------- hashes

    def file_hash(self, path: Path) -> str:
        if path not in self._file_hashes:
            self._file_hashes[path] = _sha(path.read_bytes())
        return self._file_hashes[path]

    def _module_file(self, dotted: str) -> list[Path]:
        """The files that importing `dotted` runs: each package's
        __init__.py on the way and the module itself, when in the project."""
        parts = dotted.split(".")
        if parts[0] not in self.packages:
            return []
        found = []
        for depth in range(1, len(parts) + 1):
            base = self.root.joinpath(*parts[:depth])
            for candidate in (base / "__init__.py", base.with_suffix(".py")):
                if candidate.is_file():
                    found.append(candidate)
        return found

    def imports_of(self, path: Path) -> list[Path]:
        """Project files the module at `path` imports, directly."""
        if path in self._imports:
            return self._imports[path]
        tree = ast.parse(path.read_bytes(), filename=str(path))
        package = path.relative_to(self.root).with_suffix("").parts[:-1]
        if path.name == "__init__.py":
            package = path.relative_to(self.root).parts[:-1]
        found: list[Path] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found += self._module_file(alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    keep = len(package) - (node.level - 1)
                    base = ".".join(
                        package[:keep] + ((node.module,) if node.module else ())
                    )
                else:
                    base = node.module or ""
                found += self._module_file(base)
                for alias in node.names:  # `from pkg import module`
                    found += self._module_file(f"{base}.{alias.name}")
        self._imports[path] = sorted(set(found))
        return self._imports[path]

    def sources_of(self, path: Path) -> list[Path]:
        """The module and every project module it imports, transitively."""
        path = Path(path).resolve()
        if path not in self._closures:
            seen: set[Path] = set()
            todo = [path]
            while todo:
                current = todo.pop()
                if current in seen or not current.is_file():
                    continue
                seen.add(current)
                todo.extend(self.imports_of(current))
            self._closures[path] = sorted(seen)
        return self._closures[path]

    def data_fingerprint(self) -> str:
        """One hash of every data file build-time code may read."""
        if self._data is None:
            files: set[Path] = set()
            for folder in DATA_DIRS:
                files.update(p for p in (self.root / folder).rglob("*") if p.is_file())
            for package in self.packages:
                files.update(
                    p
                    for p in (self.root / package).rglob("*")
                    if p.is_file() and p.suffix not in (".py", ".pyc")
                )
            files.update(self.root / rel for rel in DATA_FILES)
            lines = [
                f"{p.relative_to(self.root).as_posix()} {self.file_hash(p)}"
                for p in sorted(files)
                if p.is_file() and "__pycache__" not in p.parts
            ]
            self._data = _sha("\n".join(lines).encode())
        return self._data

    def key(self, kind: str, module: str, call: str, expanders: Iterable[str]) -> str:
        """The key of one computed value: its call and the hashes of every
        source and data file it can depend on."""
        sources = self.sources_digest((module, *expanders))
        lines = [VERSION, sys.version, kind, module, call, sources]
        lines += self.argument_fingerprints(call)
        return _sha("\n".join(lines).encode())

    def argument_fingerprints(self, call: str) -> list[str]:
        """A call may name its own data (a test's results folder, a page's
        fixture): every string argument that names an existing file or
        folder adds the hashes of what it holds, so new data is never
        answered from the cache."""
        found = []
        for literal in re.findall(r"\"([^\"]+)\"|'([^']+)'", call):
            text = literal[0] or literal[1]
            path = Path(text) if Path(text).is_absolute() else self.root / text
            try:
                if path.is_file():
                    found.append(f"{text} {self.file_hash(path)}")
                elif path.is_dir():
                    found += [
                        f"{file} {self.file_hash(file)}"
                        for file in sorted(path.rglob("*"))
                        if file.is_file()
                    ]
            except OSError:
                found.append(f"{text} unreadable")
        return found

    def sources_digest(self, modules: tuple[str, ...]) -> str:
        """One hash of these modules, all they import and the data files."""
        if modules not in self._digests:
            sources: set[Path] = set()
            for module in modules:
                sources.update(self.sources_of(self.root / module))
            lines = [self.data_fingerprint()] + [
                f"{p.relative_to(self.root).as_posix()} {self.file_hash(p)}"
                for p in sorted(sources)
            ]
            self._digests[modules] = _sha("\n".join(lines).encode())
        return self._digests[modules]

    # ---------------------------------------------------------------- values

    def load(self, kind: str, key: str) -> Any:
        """The stored value, or MISSING."""
        if not self.enabled:
            return MISSING
        try:
            value = pickle.loads((self.folder / kind / f"{key}.pickle").read_bytes())
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
            self.misses += 1
            return MISSING
        self.hits += 1
        return value

    def save(self, kind: str, key: str, value: Any) -> None:
        if not self.enabled:
            return
        try:
            data = pickle.dumps(value)
        except (pickle.PicklingError, TypeError, AttributeError):
            return  # not storable (a live object): computed each build
        entry = self.folder / kind / f"{key}.pickle"
        entry.parent.mkdir(parents=True, exist_ok=True)
        # Another build may write the same entry at once: write, then rename.
        handle, temporary = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, entry)

    def get(
        self,
        kind: str,
        module: str,
        call: str,
        compute: Callable[[], Any],
        expanders: Iterable[str] = ("scripts/site/hooks.py",),
    ) -> Any:
        """The stored value for this call and these sources, or compute()'s
        (then stored). An exception is raised, never stored."""
        if not self.enabled:
            return compute()
        key = self.key(kind, module, call, expanders)
        value = self.load(kind, key)
        if value is MISSING:
            value = compute()
            self.save(kind, key, value)
        return value


# ------------------------------------------------------- what the hooks keep


class StoredFigure:
    """A diagram whose SVG an earlier build saved: diagrams.figure_svg()
    saves it exactly as it saved the figure (same arguments: diagrams.py's
    hash is in the key)."""

    def __init__(self, svg: str):
        self.svg = svg

    def savefig(self, buffer, **kwargs) -> None:
        buffer.write(self.svg)


class RecordedFigure:
    """A freshly drawn figure that hands what it saves to `keep`."""

    def __init__(self, figure, keep: Callable[[str], None]):
        self.figure, self.keep = figure, keep

    def savefig(self, buffer, **kwargs) -> None:
        mine = io.StringIO()
        self.figure.savefig(mine, **kwargs)
        self.keep(mine.getvalue())
        buffer.write(mine.getvalue())


class StoredResult:
    """A pool result (the plots drawn in a second process) that is saved in
    the cache once it arrives."""

    def __init__(self, result, store: BuildCache, key: str):
        self.result, self.store, self.key = result, store, key

    def get(self):
        value = self.result.get()
        self.store.save("site-files", self.key, value)
        return value
