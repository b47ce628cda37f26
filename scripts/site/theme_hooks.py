"""ProperDocs build hooks for the theme around the pages (listed before
``scripts/site/hooks.py`` in ``mkdocs.yml``, so its ``on_post_page`` runs
first):

- ``on_config``: the repository's address from the "Edit this page" address
  (``scripts/site/repository.py``) for every page's footer
  (``overrides/partials/copyright.html``).
- ``on_page_markdown``: the page's search weight from its roadmap kind, so
  lessons rank above exercises and references
  (``scripts/site/search_terms.py``).
- ``on_post_page``: the repository's stand-in in clone commands becomes the
  real address, and every access badge of the tables and lists links to the
  page that says what Free and Premium mean (the heading's own badge is
  added, linked, by ``scripts/site/hooks.py`` after this).
- ``on_post_build``: each search entry's other spellings, and two one-line
  patches to Material's JavaScript (``scripts/site/material_patches.py``).
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from properdocs.exceptions import PluginError

from scripts.site import material_patches, repository, search_terms
from scripts.site.glossary import load_terms
from scripts.site.roadmap import iter_entries, link_access_badges, load_roadmap

_state: dict = {"repository": repository.STAND_IN, "kinds": {}}


def on_config(config, **kwargs):
    url = repository.repository_url(config.get("edit_uri"))
    _state["repository"] = url
    _state["kinds"] = {e["path"]: e.get("kind") for e in iter_entries(load_roadmap())}
    config["extra"]["repository"] = url
    config["extra"]["repository_name"] = repository.repository_name(url)
    return config


def on_page_markdown(markdown: str, page, config, files, **kwargs):
    search = page.meta.setdefault("search", {})
    kind = _state["kinds"].get(page.file.src_uri)
    search.setdefault("boost", search_terms.page_boost(kind))
    return markdown


def on_post_page(output: str, page, config, **kwargs):
    access_page = posixpath.relpath("reference/access/", page.url or ".") + "/"
    output = repository.point_at(output, _state["repository"])
    return link_access_badges(output, access_page)


def on_post_build(config, **kwargs):
    site = Path(config["site_dir"])
    index = site / "search" / "search_index.json"
    if index.is_file():
        search_terms.add_variants(index, load_terms())
    try:
        material_patches.patch_all(site)
    except material_patches.BundleChanged as exc:
        raise PluginError(str(exc)) from exc
