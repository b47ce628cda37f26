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


def test_every_kind_is_documented_in_contributing_and_in_the_hooks():
    guide = (DOCS / "contributing.md").read_text(encoding="utf-8")
    hooks = ast.get_docstring(
        ast.parse((ROOT / "scripts/site/hooks.py").read_text(encoding="utf-8"))
    )
    for kind, (syntax, _, _) in placeholders.KINDS.items():
        assert f"<!-- {kind}" in guide, f"docs/contributing.md does not explain {kind}"
        assert f"<!-- {kind}" in hooks, f"hooks.py's docstring does not list {kind}"
        assert syntax.startswith(f"<!-- {kind}")


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
