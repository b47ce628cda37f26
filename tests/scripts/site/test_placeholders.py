"""Every placeholder kind a page uses is documented, and the build refuses
one that is not (a known-broken page shows the check failing)."""

import ast
from pathlib import Path

import pytest

from scripts.site import placeholders

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"


def page_texts():
    return {
        path.relative_to(DOCS).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(DOCS.rglob("*.md"))
    }


def test_every_page_uses_only_documented_kinds():
    problems = [
        f"docs/{src}:{number}: {kind}"
        for src, text in page_texts().items()
        for number, kind in placeholders.unknown_kinds(text)
    ]
    assert problems == []


def test_the_kinds_in_use_are_all_found():
    used = {
        kind
        for text in page_texts().values()
        for _, kind in placeholders.kinds_used(text)
    }
    assert {"insert", "fact", "run", "roadmap", "diagram", "calculator"} <= used


def test_the_guide_shows_the_kinds_from_the_one_list_and_the_hooks_no_copy():
    guide = (DOCS / "contributing.md").read_text(encoding="utf-8")
    assert "<!-- insert: scripts/site/placeholders.py:kinds_table() -->" in guide
    assert "| placeholder |" not in guide, "a hand-typed copy of the table"
    hooks = ast.get_docstring(
        ast.parse((ROOT / "scripts/site/hooks.py").read_text(encoding="utf-8"))
    )
    listed = [line for line in hooks.splitlines() if line.startswith("- ``<!--")]
    assert listed == [], "hooks.py's docstring keeps a second list of kinds"
    for kind, (syntax, _, module) in placeholders.KINDS.items():
        assert syntax.startswith(f"<!-- {kind}")
        assert (ROOT / module).is_file(), module


def test_the_table_has_one_row_per_kind_each_syntax_an_example():
    rows = placeholders.kinds_table().splitlines()[2:]
    assert len(rows) == len(placeholders.KINDS)
    syntaxes = [syntax for syntax, _, _ in placeholders.KINDS.values()]
    for row, syntax in zip(rows, syntaxes, strict=True):
        assert row.startswith(f"| `{syntax}`{{ .placeholder-example }} |")


KNOWN_BROKEN = """# A page

A number: <!-- widget: snippets/x/y.py:n -->.

```markdown
<!-- also-unknown: inside a fence, an example -->
```

In code, `<!-- example: x -->` is text. <!-- glossary -->
"""


def test_a_page_with_an_unknown_kind_is_refused_naming_line_and_kind():
    assert placeholders.unknown_kinds(KNOWN_BROKEN) == [(3, "widget")]
    with pytest.raises(
        ValueError, match=r"docs/broken.md:3: unknown placeholder kind 'widget'"
    ):
        placeholders.refuse_unknown(KNOWN_BROKEN, "broken.md")
    placeholders.refuse_unknown(KNOWN_BROKEN.replace("widget", "fact"), "fine.md")
