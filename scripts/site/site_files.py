"""Files the build writes into the site beside the pages: plots and raw
result files, from the providers ``scripts/site/hooks.py`` names, drawn in a
second process while the pages render (used by the hooks)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from properdocs.exceptions import PluginError

from scripts.site.build_cache import MISSING, StoredResult

ROOT = Path(__file__).resolve().parents[2]


class _Ready:
    """A result computed in this process, with the pool result's ``get``."""

    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value


def providers_used(docs_dir: Path, providers) -> list:
    """The providers whose module some page calls: a site whose pages show
    no benchmark table needs no plots drawn."""
    texts = [
        path.read_text(encoding="utf-8", errors="replace")
        for path in docs_dir.rglob("*.md")
    ]
    return [
        (module, func, named_by)
        for module, func, named_by in providers
        if any(named_by in text for text in texts)
    ]


def start(providers, *, in_background: bool, store, load):
    """Call every provider (``load`` imports a module by its path) and return
    the pool (or None) and the pending results, reusing what ``store`` kept.
    The plots take seconds and need nothing the pages make, so for a one-off
    build they draw in one forked process on the machine's other core while
    the pages render. ``serve`` runs them in this process: it keeps server
    threads, and forking a threaded process is unsafe."""
    functions, pending = [], []
    for module_path, func_name, *_ in providers:
        if not (ROOT / module_path).is_file():
            continue
        key = store.key("site-files", module_path, f"{func_name}()", ())
        value = store.load("site-files", key)
        if value is not MISSING:
            pending.append(_Ready(value))
        elif function := getattr(load(module_path), func_name, None):
            functions.append((key, function))
    if not in_background:
        for key, function in functions:
            value = function()
            store.save("site-files", key, value)
            pending.append(_Ready(value))
        return None, pending
    pool = multiprocessing.get_context("fork").Pool(1)
    for key, function in functions:
        pending.append(StoredResult(pool.apply_async(function), store, key))
    pool.close()
    return pool, pending


def write(site_dir: Path, pending) -> None:
    """Write each provider's {site-relative path: content} under site_dir;
    a provider's failure is raised here as one line (a result file's plot
    names the file)."""
    for result in pending:
        try:
            files = result.get()
        except ValueError as exc:  # ResultFileError: one line naming the file
            if type(exc).__name__ != "ResultFileError":
                raise
            raise PluginError(str(exc)) from None
        for rel, content in files.items():
            target = site_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(
                content if isinstance(content, bytes) else content.encode()
            )
