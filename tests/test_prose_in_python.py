"""Words live on the page: sentences in snippets/ may only become fewer.

A sentence a reader sees belongs in the page's Markdown; a snippet supplies
numbers (facts()), tables and figures. This test counts the sentence-like
string literals in every file under snippets/ and compares each file's
count with the reviewed allow-list in tests/prose_allowlist.json:

- a file with more sentences than its entry fails (move the words to the
  page and give the numbers through facts());
- a file with fewer fails too, until its entry is lowered, so the list
  can only shrink and never hides room for new prose.

A sentence-like string is a literal (an f-string's text parts joined) of
at least SENTENCE_WORDS words (of two letters or more) outside docstrings,
exception messages and argparse help. Program output (print) counts: a run box shows it.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALLOWLIST = ROOT / "tests" / "prose_allowlist.json"
SENTENCE_WORDS = 6
WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’-]+")  # two letters or more


def _literal_text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " ".join(
            v.value if isinstance(v, ast.Constant) else "{}" for v in node.values
        )
    return None


def sentences(source: str) -> list[str]:
    """The sentence-like string literals of one module's source. One
    breadth-first walk: a parent is seen before its children, so the
    literals it rules out (docstrings, raise messages, help=, an f-string's
    parts) are known before they are reached."""
    skip, found = set(), []
    for node in ast.walk(ast.parse(source)):
        if id(node) in skip:
            continue
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            skip.add(id(body[0].value))
        if isinstance(node, ast.Raise) and node.exc is not None:
            skip.update(id(n) for n in ast.walk(node.exc))
        elif isinstance(node, ast.keyword) and node.arg == "help":
            skip.update(id(n) for n in ast.walk(node.value))
        elif isinstance(node, ast.JoinedStr):
            skip.update(id(v) for v in node.values)
        text = _literal_text(node)
        if text is not None and len(WORD_RE.findall(text)) >= SENTENCE_WORDS:
            found.append(text)
    return found


def counts(root: Path = ROOT) -> dict[str, int]:
    """Sentence-like literals per file under root/snippets, non-zero only."""
    out = {}
    for path in sorted((root / "snippets").rglob("*.py")):
        n = len(sentences(path.read_text(encoding="utf-8")))
        if n:
            out[path.relative_to(root).as_posix()] = n
    return out


def problems(found: dict[str, int], allowed: dict[str, int]) -> list[str]:
    """Files whose count differs from the allow-list, one line each."""
    out = []
    for name in sorted(set(found) | set(allowed)):
        have, may = found.get(name, 0), allowed.get(name, 0)
        if have > may:
            out.append(
                f"{name}: {have} sentence-like strings, the allow-list has {may}; "
                "move the words to the page (numbers through facts())"
            )
        elif have < may:
            out.append(
                f"{name}: {have} sentence-like strings, fewer than the "
                f"allow-list's {may}; lower its entry in {ALLOWLIST.name}"
            )
    return out


def test_snippets_hold_no_more_sentences_than_the_reviewed_list():
    allowed = json.loads(ALLOWLIST.read_text(encoding="utf-8"))
    assert problems(counts(), allowed) == []


def test_a_new_sentence_in_a_snippet_fails(tmp_path):
    folder = tmp_path / "snippets" / "lesson"
    folder.mkdir(parents=True)
    (folder / "model.py").write_text(
        '"""A docstring of many words is not counted at all here."""\n'
        "def facts():\n"
        '    return {"bytes": f"{2 ** 20:,}"}\n'
    )
    assert counts(tmp_path) == {}
    (folder / "model.py").write_text(
        "def answer_text(n):\n"
        '    return f"The kernel moves {n} bytes, so it is memory-bound."\n'
        "def check(n):\n"
        "    if n < 0:\n"
        '        raise ValueError(f"n must be at least zero, got {n} here")\n'
    )
    found = counts(tmp_path)
    assert found == {"snippets/lesson/model.py": 1}
    assert "move the words to the page" in problems(found, {})[0]
    assert "lower its entry" in problems({}, found)[0]
