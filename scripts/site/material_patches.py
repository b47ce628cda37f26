"""Two one-line substitutions in Material's built JavaScript, each for a
behaviour its configuration cannot reach. Material is pinned
(requirements/site.txt); when a new version no longer holds a line exactly
once, the build fails naming the patch, so it is checked, not silently lost.

- ``port``: instant navigation swaps a page in place (keeping the
  calculators' Python loaded) only for links the sitemap lists. Material
  copies the served page's protocol and host name onto each ``<loc>`` but
  not its port, so a site built for ``http://127.0.0.1:8000/`` and served on
  any other port reloaded on every click and started Pyodide again on every
  calculator page (the reader walk of 2026-12-02: 11.9 s against 0.48 s).
  The patch copies the port too; on the published site (default port) it
  changes nothing.
- ``query separator``: the search worker splits indexed text with the
  separator ``mkdocs.yml`` sets (no hyphen, so "all-reduce" is one word), but
  its query lexer keeps lunr's built-in separator, which splits at hyphens:
  "split-K" became "split* k*", and "k*" matched every word starting with k.
  The patch makes the lexer split at white space only, as lunr does but
  for the hyphen; the worker then splits each term with the configured
  separator, as it splits the indexed text ("(SM)" becomes "SM").
"""

from __future__ import annotations

from pathlib import Path

#: name -> (file pattern under assets/javascripts, Material 9.8's text, patched)
PATCHES = {
    "port": (
        "bundle.*.min.js",
        "e.protocol=t.protocol,e.hostname=t.hostname,e}",
        "e.protocol=t.protocol,e.hostname=t.hostname,e.port=t.port,e}",
    ),
    "query separator": (
        "workers/search.*.min.js",
        "lunr.tokenizer.separator=new RegExp(e.separator),",
        "lunr.tokenizer.separator=new RegExp(e.separator),"
        "lunr.QueryLexer.termSeparator=/\\s+/,",
    ),
}


class BundleChanged(RuntimeError):
    """Material's JavaScript no longer holds a line this module patches."""


def patch(site_dir: Path, name: str) -> Path:
    """Apply one patch to the built site in `site_dir`; return the file.
    Applying it twice changes nothing."""
    pattern, before, after = PATCHES[name]
    found = sorted((site_dir / "assets" / "javascripts").glob(pattern))
    if len(found) != 1:
        raise BundleChanged(
            f"{site_dir}: {name} patch: expected one {pattern}, found {len(found)}"
        )
    text = found[0].read_text(encoding="utf-8")
    if text.count(after) == 1:
        return found[0]
    if text.count(before) != 1:
        raise BundleChanged(
            f"{found[0].name}: Material changed the line the {name} patch "
            "replaces; check whether the new version needs it "
            "(scripts/site/material_patches.py)"
        )
    found[0].write_text(text.replace(before, after), encoding="utf-8")
    return found[0]


def patch_all(site_dir: Path) -> list[Path]:
    return [patch(site_dir, name) for name in PATCHES]
