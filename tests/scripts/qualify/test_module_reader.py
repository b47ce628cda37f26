"""What a candidate binds at its top level, read from its syntax tree
without running it (scripts/qualify/module_reader.py)."""

import ast

import pytest
import triton.language as tl

from scripts.qualify import module_reader


def value(text: str, scope: dict | None = None):
    return module_reader.fold(ast.parse(text, mode="eval").body, scope or {})


def test_expressions_fold_as_python_computes_them():
    scope = {"BLOCK": 256, "tl": tl}
    assert value("4 * BLOCK + (1 << 3)", scope) == 1032
    assert value("BLOCK if BLOCK > 128 else 64", scope) == 256
    assert value("tl.constexpr(2 ** 10)", scope).value == 1024


@pytest.mark.parametrize(
    "text",
    ["2 ** 10 ** 9", "'x' * 10 ** 8", "len('abc')", "tl._private", "missing + 1"],
    ids=["huge power", "huge text", "a call", "private attribute", "unbound"],
)
def test_what_the_tree_does_not_give_is_unknown(text):
    with pytest.raises(module_reader.Unknown):
        value(text, {"tl": tl})


def test_statements_follow_try_bodies_and_decided_branches_only():
    tree = ast.parse(
        "try:\n    A = 1\nexcept ImportError:\n    A = 2\n"
        "if 3 > 2:\n    B = 1\nelse:\n    C = 1\n"
        "if unknown():\n    D = 1\n"
    )
    undecided: set = set()
    names = [
        t.id
        for node in module_reader.statements(tree.body, {}, undecided)
        for t in getattr(node, "targets", [])
    ]
    assert names == ["A", "B"]  # the except handler and the else are not run
    assert undecided == {"D"}
