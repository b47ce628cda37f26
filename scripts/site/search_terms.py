"""Search that finds the field's words: page weights and spelling variants
for Material's search index.

Material builds its index in the reader's browser from
``search/search_index.json``. ``mkdocs.yml`` gives it a separator without the
hyphen, so "all-reduce" and "split-K" stay one word each (a split query
"split* k*" matched every word starting with k). This module adds, per entry:

- ``boost``, from the page's kind in ``docs/roadmap.yml`` (``KIND_BOOST``):
  lessons first, then projects, then exercises, course indexes and
  references, whose headings (a glossary entry is one) otherwise outrank the
  lesson that teaches the term.
- ``title_variants`` and ``text_variants``, two extra fields (declared in
  ``mkdocs.yml``, not shown in results) holding the other spellings of the
  entry's words that it does not already contain: the American for the
  British and back ("specialisation", "specialization"), a hyphenated word
  joined and split ("all-reduce": "allreduce", "all", "reduce"); and, on
  the first entry of the lesson the glossary names for a term
  (``scripts/site/glossary.yml``), that term, so the page that teaches a
  word ranks above the pages that use it.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

#: A page's weight in the ranking, by its roadmap kind.
KIND_BOOST = {
    "lesson": 1.0,
    "project": 0.5,
    "exercise": 0.1,
    "course": 0.05,
    "reference": 0.01,
}
#: -ise/-ize and -yse/-yze families: "quantisation", "analyse", ...
SPELLING_RE = re.compile(
    r"^(?P<stem>\w{2,}?)(?P<s>[iy][sz])(?P<end>e|es|ed|ing|ation|ations|er|ers|able)$"
)
#: Other British and American pairs the site's pages use.
PAIRS = {
    "behaviour": "behavior",
    "colour": "color",
    "neighbour": "neighbor",
    "modelling": "modeling",
    "labelled": "labeled",
    "centre": "center",
}
PAIRS.update({american: british for british, american in list(PAIRS.items())})
WORD_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
TAG_RE = re.compile(r"<[^>]+>")


def respelled(word: str) -> set[str]:
    """The other spellings of one lower-case word."""
    if word in PAIRS:
        return {PAIRS[word]}
    match = SPELLING_RE.match(word)
    if match is None:
        return set()
    swap = {"is": "iz", "iz": "is", "ys": "yz", "yz": "ys"}[match["s"]]
    return {f"{match['stem']}{swap}{match['end']}"}


def variants(text: str) -> str:
    """Words a search should match in `text` (HTML) that it does not hold:
    respellings, and each hyphenated word joined and in parts."""
    words = set(WORD_RE.findall(html.unescape(TAG_RE.sub(" ", text)).lower()))
    extra: set[str] = set()
    for word in words:
        parts = word.split("-")
        if len(parts) > 1:
            extra.add("".join(parts))
            extra.update(parts)
            joined = {
                "-".join(parts[:i] + [r] + parts[i + 1 :])
                for i, part in enumerate(parts)
                for r in respelled(part)
            }
            extra.update(joined)
        for part in parts:
            extra.update(respelled(part))
    return " ".join(sorted(extra - words))


def page_boost(kind: str | None) -> float:
    """The ranking weight of a page of this roadmap kind (1 when unknown)."""
    return KIND_BOOST.get(kind or "", 1.0)


def page_url(src: str) -> str:
    """The URL (relative to the site) of a page built from docs/`src`."""
    stem = src.rsplit(".", 1)[0]
    if stem == "index":
        return ""
    return stem[: -len("index")] if stem.endswith("/index") else stem + "/"


def taught_terms(glossary: list[dict]) -> dict[str, str]:
    """{page URL: the glossary terms it teaches, as one string}."""
    taught: dict[str, list[str]] = {}
    for term in glossary:
        taught.setdefault(page_url(term["lesson"]), []).append(term["term"])
    return {url: " ".join(terms) for url, terms in taught.items()}


def add_variants(index_path: Path, glossary: list[dict] = ()) -> int:
    """Rewrite Material's index with each entry's variant fields; return how
    many entries gained any."""
    data = json.loads(index_path.read_text(encoding="utf-8"))
    taught = taught_terms(list(glossary))
    gained = 0
    for entry in data["docs"]:
        words = entry.get("title", "") + " " + taught.get(entry["location"], "")
        own = set(WORD_RE.findall(entry.get("title", "").lower()))
        wanted = set(WORD_RE.findall(words.lower())) | set(variants(words).split())
        title = " ".join(sorted(wanted - own))
        text = variants(entry.get("text", ""))
        if title:
            entry["title_variants"] = title
        if text:
            entry["text_variants"] = text
        gained += bool(title or text)
    index_path.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
    return gained
