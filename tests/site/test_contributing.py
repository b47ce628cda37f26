"""docs/contributing.md against the code: every file it names exists, every
``make`` target and ``python -m`` module it names is there, the counts it
states are the code's, and its claim about argument parsing holds (issue 45).

The guide is read as text (no build); each check is a function of the text
and the tree, shown failing on a known-bad line.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from scripts.site import run_boxes

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "contributing.md"
TOPS = ("kernels", "evidence", "snippets", "scripts", "tests", "docs", "results")
CODE_SPAN_RE = re.compile(r"`([^`\n]+)`")
PATH_RE = re.compile(rf"^(?:{'|'.join(TOPS)})/[\w./-]*$")
#: A path with one of these is a pattern (kernels/<op>.py), not a file.
TEMPLATE = re.compile(r"[<>*]|\bNAME\b|FOLDER|docs-path|/x/|\bx\.py")


def guide() -> str:
    return GUIDE.read_text(encoding="utf-8")


def named_paths(text: str) -> list[str]:
    """Every repository path the text names in a code span (a section or a
    function after ``:`` dropped), patterns left out."""
    found = []
    for span in CODE_SPAN_RE.findall(text):
        for word in span.split():
            word = word.strip('",;()').split(":")[0]
            if PATH_RE.match(word) and not TEMPLATE.search(span):
                found.append(word.rstrip("/."))
    return found


def missing_paths(text: str, root: Path = ROOT) -> list[str]:
    return sorted({p for p in named_paths(text) if not (root / p).exists()})


def make_targets(root: Path = ROOT) -> set[str]:
    text = (root / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][\w-]*):", text, re.MULTILINE))


def unknown_make_targets(text: str, root: Path = ROOT) -> list[str]:
    named = re.findall(r"`make ([a-z][\w-]*)", text)
    return sorted(set(named) - make_targets(root))


def unknown_modules(text: str, root: Path = ROOT) -> list[str]:
    """``python -m X`` where X is neither a module file nor a package
    (a pattern such as ``scripts.<tool>`` is not matched)."""
    problems = []
    for module in set(re.findall(r"python -m ([\w.]+)(?![\w.<])", text)):
        base = root / Path(*module.split("."))
        if not (base.with_suffix(".py").is_file() or (base / "__main__.py").is_file()):
            problems.append(module)
    return sorted(problems)


def plain_parsers(root: Path = ROOT) -> list[str]:
    """Tools that build a plain argparse parser instead of OneLineParser."""
    problems = []
    for path in sorted((root / "scripts").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name == "cli.py" or "ArgumentParser" not in text:
            continue  # only a file that names it can build one
        for node in ast.walk(ast.parse(text)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "ArgumentParser"
            ):
                problems.append(f"{path.relative_to(root).as_posix()}:{node.lineno}")
    return problems


def test_every_file_the_guide_names_exists():
    assert len(named_paths(guide())) > 30  # the check reads what it should
    assert missing_paths(guide()) == []


def test_every_make_target_and_module_the_guide_names_exists():
    assert len(re.findall(r"python -m scripts\.\w", guide())) >= 4
    assert unknown_make_targets(guide()) == []
    assert unknown_modules(guide()) == []


def test_the_run_box_limit_the_guide_states_is_the_codes():
    stated = re.search(r"at most (\d+) lines", guide())
    assert stated and int(stated[1]) == run_boxes.MAX_LINES


def test_every_tool_parses_with_the_one_line_parser_as_the_guide_says():
    assert "parses its arguments with `scripts.cli.OneLineParser`" in guide()
    assert plain_parsers() == []


def test_each_check_fails_on_a_known_bad_guide(tmp_path):
    bad = (
        "See `kernels/no_such.py:f` and `kernels/<op>.py`, run `make no-target`"
        " and `python -m scripts.no_such_tool`."
    )
    assert missing_paths(bad) == ["kernels/no_such.py"]
    assert unknown_make_targets(bad) == ["no-target"]
    assert unknown_modules(bad) == ["scripts.no_such_tool"]
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "tool.py").write_text(
        "import argparse\np = argparse.ArgumentParser()\n"
    )
    assert plain_parsers(tmp_path) == ["scripts/tool.py:2"]
